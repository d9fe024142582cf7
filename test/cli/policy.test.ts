import { describe, expect, it } from 'vitest';
import { run } from './run.js';

/** `--policy` on the CLI (LANGUAGE.md §8, FORMATS.md §4), over examples/policy. */
const folder = 'examples/policy';
const schema = ['--tools', `${folder}/tools.json`, '--states', `${folder}/states.json`];
const policy = ['--policy', `${folder}/airline.policy`];
const golden = 'test/golden/diagnostics';

describe('intentguard --policy', () => {
  it('check: the intent and the policy check together, each reported under its own name', async () => {
    const result = await run(['check', `${folder}/cancel.intent`, ...schema, ...policy]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`${folder}/airline.policy: ok — 0 errors, 0 warnings`);
    expect(result.stdout).toContain(`${folder}/cancel.intent: ok — 0 errors, 0 warnings`);
    expect(result.code).toBe(0);
  });

  it("check: a policy's errors are its own file's, and exit 1", async () => {
    const result = await run([
      'check',
      `${golden}/empty-policy/input.intent`,
      '--states',
      `${golden}/done-in-policy/states.json`,
      '--policy',
      `${golden}/done-in-policy/input.policy`,
      '--json',
    ]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      policy: string;
      diagnostics: { code: string; file: string }[];
    };
    expect(report.ok).toBe(false);
    expect(report.policy).toBe(`${golden}/done-in-policy/input.policy`);
    expect(report.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'done-in-policy',
        file: `${golden}/done-in-policy/input.policy`,
      }),
    );
    expect(report.diagnostics.every((diagnostic) => diagnostic.code !== 'foreign-objective')).toBe(
      true,
    );
  });

  it('check: policy-conflict warnings point into the intent', async () => {
    const result = await run([
      'check',
      `${golden}/policy-conflict/input.intent`,
      '--states',
      `${golden}/policy-conflict/states.json`,
      '--policy',
      `${golden}/policy-conflict/input.policy`,
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('warning[policy-conflict]');
    expect(result.stdout).toContain(`--> ${golden}/policy-conflict/input.intent:2:1`);
  });

  it('replay: both judges decide every step; the trace passes --check', async () => {
    const result = await run([
      'replay',
      `${folder}/cancel.intent`,
      ...schema,
      ...policy,
      '--trace',
      `${folder}/refused.jsonl`,
      '--now',
      '2024-05-15T15:00',
      '--check',
    ]);
    expect(result.stderr).toContain('4 passed, 0 failed');
    expect(result.code).toBe(0);
    const verdicts = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { reasons?: { code: string; source: string }[] });
    expect(verdicts[3]?.reasons?.[0]).toMatchObject({ code: 'policy-violation', source: 'policy' });
    expect(verdicts[4]?.reasons?.map((reason) => reason.source)).toEqual(['policy', 'intent']);
  });

  it('replay without the policy: the intent alone lets the cancellation run', async () => {
    const result = await run([
      'replay',
      `${folder}/cancel.intent`,
      ...schema,
      '--trace',
      `${folder}/refused.jsonl`,
      '--now',
      '2024-05-15T15:00',
      '--check',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/failed/);
  });

  it('replay: a policy with errors runs nothing (exit 1)', async () => {
    const result = await run([
      'replay',
      `${golden}/empty-policy/input.intent`,
      '--states',
      `${golden}/done-in-policy/states.json`,
      '--policy',
      `${golden}/done-in-policy/input.policy`,
      '--trace',
      `${folder}/refused.jsonl`,
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error[done-in-policy]');
  });

  it('compile --policy: one document; replayed alone it decides as the texts with --policy', async () => {
    const compiled = await run(
      [
        'compile',
        `${folder}/cancel.intent`,
        ...schema,
        ...policy,
        '-o',
        '/out/cancel.compiled.json',
      ],
      { files: { '/out/cancel.compiled.json': '' } },
    );
    expect(compiled.code).toBe(0);
    const document = JSON.parse(compiled.files.get('/out/cancel.compiled.json') ?? '{}');
    expect(document.policy.source).toContain('reject send_certificate(amount > 500)');
    const files = {
      '/out/cancel.compiled.json': compiled.files.get('/out/cancel.compiled.json') ?? '',
    };
    const trace = ['--trace', `${folder}/refused.jsonl`, '--check'];
    const fromDocument = await run(['replay', '/out/cancel.compiled.json', ...trace], { files });
    const fromText = await run([
      'replay',
      `${folder}/cancel.intent`,
      ...schema,
      ...policy,
      ...trace,
    ]);
    expect(fromDocument.code).toBe(0);
    expect(fromDocument.stdout).toBe(fromText.stdout);
    // With the host's own schema, the document's must be that one.
    const pinned = await run(['replay', '/out/cancel.compiled.json', ...schema, ...trace], {
      files,
    });
    expect(pinned.stdout).toBe(fromText.stdout);
  });

  it('replay: a compiled composition given another --policy is a usage error', async () => {
    const compiled = await run(['compile', `${folder}/cancel.intent`, ...schema, ...policy]);
    const files = { '/c.json': compiled.stdout };
    const result = await run(
      ['replay', '/c.json', ...policy, '--trace', `${folder}/refused.jsonl`],
      { files },
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('composes its own policy');
  });

  it('replay: a compiled composition whose policy part was edited runs nothing (exit 1)', async () => {
    const compiled = await run(['compile', `${folder}/cancel.intent`, ...schema, ...policy]);
    const document = JSON.parse(compiled.stdout);
    document.policy.guards[0].pattern.constraints[0].value.value = 5000;
    const result = await run(['replay', '/c.json', '--trace', `${folder}/refused.jsonl`], {
      files: { '/c.json': JSON.stringify(document) },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('$.policy.guards[0].pattern.constraints[0].value.value');
  });

  it('compile --policy: a policy with errors, or a pair sharing an objective, writes nothing (exit 1)', async () => {
    const broken = await run([
      'compile',
      `${golden}/empty-policy/input.intent`,
      '--states',
      `${golden}/done-in-policy/states.json`,
      '--policy',
      `${golden}/done-in-policy/input.policy`,
    ]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toContain('error[done-in-policy]');
    const shared = await run([
      'compile',
      `${golden}/shared-objective/input.intent`,
      '--states',
      `${golden}/shared-objective/states.json`,
      '--policy',
      `${golden}/shared-objective/input.policy`,
    ]);
    expect(shared.code).toBe(1);
    expect(shared.stdout).toBe('');
    expect(shared.stderr).toContain('error[shared-objective]');
    expect(shared.stderr).toContain('nothing was written');
  });

  it('explain: the policy is explained after the spec', async () => {
    const result = await run(['explain', `${folder}/cancel.intent`, ...schema, ...policy]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("The operator's policy (every call must also pass it):");
    expect(result.stdout).toContain('send_certificate with amount greater than 500');
    const [intentPart, policyPart] = result.stdout.split("The operator's policy");
    // The intent plans: what the user said, its steps, and that unplanned critical calls are refused.
    expect(intentPart).toContain(
      'What the user said (holds from the start):\n- TripPurpose with reason equal to "a family birthday"',
    );
    expect(intentPart).toContain('refused as not part of the plan');
    // The policy permits and refuses: no plan, no finish, no "any other critical action is refused".
    expect(policyPart).toContain(
      'Permissions: a call of cancel_reservation or send_certificate is refused unless one of these holds:\n1. InsuredCancellation (CancelInsured; may be repeated):',
    );
    expect(policyPart).toContain(
      "Any other call is not governed by the policy: only its guards apply to it. What the task needs and when it is done are the intent's to say.",
    );
    expect(policyPart).not.toContain('not part of the plan');
    expect(policyPart).not.toContain('Steps:');
    const json = await run(['explain', `${folder}/cancel.intent`, ...schema, ...policy, '--json']);
    const explained = JSON.parse(json.stdout) as {
      given: string[];
      policy: { governed: string[]; steps: unknown[] };
    };
    expect(explained.given).toEqual(['TripPurpose with reason equal to "a family birthday"']);
    expect(explained.policy.governed).toEqual(['cancel_reservation', 'send_certificate']);
    expect(explained.policy.steps).toHaveLength(3);
  });

  it('explain: a policy of guards only governs no call', async () => {
    const guards = 'reject send_certificate(amount > 500) because "no agent sends more than 500"\n';
    const result = await run(['explain', `${folder}/cancel.intent`, ...schema, '--policy', '-'], {
      stdin: guards,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Always refused:\n- send_certificate with amount greater than 500 — no agent sends more than 500\nThe policy governs no call: only its guards apply.',
    );
    expect(result.stdout).not.toContain('Permissions:');
  });

  it('fmt: given and refused print canonically (a fixed point)', async () => {
    const first = await run(['fmt', `${folder}/cancel.intent`]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('given TripPurpose(reason = "a family birthday")');
    expect(first.stdout).toContain('refused cancel_reservation(reservation_id = "ABC123")');
    const again = await run(['fmt', '-'], { stdin: first.stdout });
    expect(again.stdout).toBe(first.stdout);
  });

  it('one schema file {tools, states} works wherever --tools or --states does, as the two files do', async () => {
    const { readFileSync } = await import('node:fs');
    const oneFile = JSON.stringify({
      tools: JSON.parse(readFileSync(`${folder}/tools.json`, 'utf8')),
      states: JSON.parse(readFileSync(`${folder}/states.json`, 'utf8')),
    });
    const files = { 'airline-schema.json': oneFile };
    const replay = (schemaFlags: readonly string[]) =>
      run(
        [
          'replay',
          `${folder}/cancel.intent`,
          ...schemaFlags,
          ...policy,
          '--trace',
          `${folder}/refused.jsonl`,
          '--now',
          '2024-05-15T15:00',
          '--check',
        ],
        { files },
      );
    const apart = await replay(schema);
    for (const flag of ['--tools', '--states']) {
      const together = await replay([flag, 'airline-schema.json']);
      expect(together.stderr).toContain('4 passed, 0 failed');
      expect(together.stdout).toBe(apart.stdout);
      expect(together.code).toBe(0);
    }
    const checked = await run(
      ['check', `${folder}/cancel.intent`, '--tools', 'airline-schema.json', ...policy],
      {
        files,
      },
    );
    expect(checked.code).toBe(0);
    // A name both halves declare is an input error, located in the states half.
    const clash = JSON.stringify({
      tools: JSON.parse(readFileSync(`${folder}/tools.json`, 'utf8')),
      states: { cancel_reservation: { description: 'a clash', variables: [] } },
    });
    const refused = await run(['check', `${folder}/cancel.intent`, '--tools', 'clash.json'], {
      files: { 'clash.json': clash },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('schema-duplicate');
    expect(refused.stderr).toContain('$.states.cancel_reservation');
  });
});
