import { describe, expect, it } from 'vitest';
import { fixedNow, restaurantStates } from './examples.js';
import { run } from './run.js';

/**
 * `check` and `explain` take what `intentguard compile` writes: a compiled document, alone
 * or composed with a policy, reports and explains as its source texts do; a tampered one
 * is refused at its JSONPath; a composition given another `--policy` is a usage error.
 */
const folder = 'examples/policy';
const schema = ['--tools', `${folder}/tools.json`, '--states', `${folder}/states.json`];
const policy = ['--policy', `${folder}/airline.policy`];
const taubench = 'examples/taubench';
const taubenchSchema = [
  '--tools',
  `${taubench}/airline-tools.json`,
  '--states',
  `${taubench}/airline-states.json`,
];
const taubenchPolicy = ['--policy', `${taubench}/airline.policy`];
const golden = 'test/golden/diagnostics';
const warningOnly =
  'R1: RestaurantInfo(name = R) & ReserveInfo(available = true) -> Reserve\nReserve -> Done\n';

/** `intentguard compile ARGS` to standard output, which must succeed. */
async function compiled(args: readonly string[], files: Record<string, string> = {}) {
  const result = await run(['compile', ...args], { files });
  expect(result.code).toBe(0);
  return result.stdout;
}

interface CheckJson {
  readonly file: string;
  readonly ok: boolean;
  readonly errors: number;
  readonly warnings: number;
  readonly policy?: string;
  readonly diagnostics: readonly { readonly code: string; readonly file: string }[];
}

describe('intentguard check DOCUMENT', () => {
  it("a document reports its source's warnings as the text does, with --json, and exits 0", async () => {
    const document = await compiled(['warn.intent', '--states', restaurantStates], {
      'warn.intent': warningOnly,
    });
    const files = { 'warn.intent': warningOnly, 'warn.json': document };
    const text = await run(['check', 'warn.intent', '--states', restaurantStates], { files });
    const fromDocument = await run(['check', 'warn.json'], { files });
    expect(fromDocument.code).toBe(0);
    expect(fromDocument.stderr).toBe('');
    expect(fromDocument.stdout).toContain('warning[bare-text-value]');
    expect(fromDocument.stdout).toContain('--> warn.json:1:27');
    expect(fromDocument.stdout).toBe(text.stdout.replaceAll('warn.intent', 'warn.json'));
    const json = await run(['check', 'warn.json', '--json'], { files });
    const report = JSON.parse(json.stdout) as CheckJson;
    expect(report).toMatchObject({ file: 'warn.json', ok: true, errors: 0, warnings: 1 });
    expect(report.diagnostics).toEqual([
      expect.objectContaining({ code: 'bare-text-value', file: 'warn.json' }),
    ]);
    expect(report.policy).toBeUndefined();
  });

  it('a composition: both parts checked, each with its verdict line; --json names the policy part', async () => {
    const document = await compiled([`${folder}/cancel.intent`, ...schema, ...policy]);
    const files = { '/c.json': document };
    const result = await run(['check', '/c.json'], { files });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      '/c.json (policy): ok — 0 errors, 0 warnings\n/c.json: ok — 0 errors, 0 warnings\n',
    );
    const pinned = await run(['check', '/c.json', ...schema, '--json'], { files });
    expect(pinned.code).toBe(0);
    expect(JSON.parse(pinned.stdout)).toMatchObject({
      file: '/c.json',
      schema: `${folder}/tools.json`,
      ok: true,
      policy: '/c.json (policy)',
    });
  });

  it("a composition's pair warnings (policy-conflict) point into the intent, as for the texts", async () => {
    const args = [
      `${golden}/policy-conflict/input.intent`,
      '--states',
      `${golden}/policy-conflict/states.json`,
      '--policy',
      `${golden}/policy-conflict/input.policy`,
    ];
    const document = await compiled(args);
    const text = await run(['check', ...args]);
    const result = await run(['check', '/p.json'], { files: { '/p.json': document } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('warning[policy-conflict]');
    expect(result.stdout).toContain('--> /p.json:2:1');
    expect(result.stdout).toBe(
      text.stdout
        .replaceAll(`${golden}/policy-conflict/input.policy`, '/p.json (policy)')
        .replaceAll(`${golden}/policy-conflict/input.intent`, '/p.json'),
    );
  });

  it('a document without a policy part and --policy FILE: the pair is checked as the texts are', async () => {
    const document = await compiled([`${folder}/cancel.intent`, ...schema]);
    const result = await run(['check', '/c.json', ...policy], { files: { '/c.json': document } });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `${folder}/airline.policy: ok — 0 errors, 0 warnings\n/c.json: ok — 0 errors, 0 warnings\n`,
    );
  });

  it('tampered documents are refused with the JSONPath of the change (exit 1, nothing on stdout)', async () => {
    const document = JSON.parse(
      await compiled([`${folder}/cancel.intent`, ...schema, ...policy]),
    ) as {
      policy: { guards: { pattern: { constraints: { value: { value: number } }[] } }[] };
      source: string;
    };
    const guard = structuredClone(document);
    // The policy's "no agent sends more than 500" raised to 5000.
    guard.policy.guards[0]!.pattern.constraints[0]!.value.value = 5000;
    const source = structuredClone(document);
    source.source = source.source.replaceAll('ABC123', 'XYZ999');
    const stripped = structuredClone(document) as Record<string, unknown>;
    stripped.format = 'something-else';
    for (const [edited, path] of [
      [guard, '$.policy.guards[0].pattern.constraints[0].value.value'],
      [source, '$.'],
    ] as const) {
      const result = await run(['check', '/t.json'], {
        files: { '/t.json': JSON.stringify(edited) },
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`/t.json: compiled spec: ${path}`);
    }
    // Not a compiled document at all: read as spec text, which does not parse.
    const other = await run(['check', '/t.json', ...schema], {
      files: { '/t.json': JSON.stringify(stripped) },
    });
    expect(other.code).toBe(1);
    expect(other.stdout).toContain('/t.json: invalid');
  });

  it('a document over another schema than --states/--tools is refused at $.schema (exit 1)', async () => {
    const document = await compiled(['warn.intent', '--states', restaurantStates], {
      'warn.intent': warningOnly,
    });
    const result = await run(['check', '/w.json', ...schema], { files: { '/w.json': document } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/w.json: compiled spec: $.schema');
  });

  it('a composition given another --policy is a usage error (exit 2), as in replay', async () => {
    const document = await compiled([`${folder}/cancel.intent`, ...schema, ...policy]);
    const result = await run(['check', '/c.json', ...policy], { files: { '/c.json': document } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('/c.json composes its own policy');
  });

  it('reads a document from standard input once', async () => {
    const document = await compiled([`${folder}/cancel.intent`, ...schema, ...policy]);
    const result = await run(['check', '-'], { stdin: document });
    expect(result.code).toBe(0);
    expect(result.stdinReads).toBe(1);
    expect(result.stdout).toContain('<stdin> (policy): ok');
  });
});

describe('intentguard explain DOCUMENT', () => {
  const now = ['--now', fixedNow];
  const cases = [
    { name: 'examples/policy', intent: `${folder}/cancel.intent`, schema, policy },
    ...[3, 12, 39].map((task) => ({
      name: `τ-bench task ${task}`,
      intent: `${taubench}/intents/task-${task}.intent`,
      schema: taubenchSchema,
      policy: taubenchPolicy,
    })),
  ];

  it.each(cases)(
    '$name: a composed document explains byte for byte as the texts with --policy, text and --json',
    async (example) => {
      const document = await compiled([example.intent, ...example.schema, ...example.policy]);
      const files = { '/d.json': document };
      for (const json of [[], ['--json']]) {
        const text = await run([
          'explain',
          example.intent,
          ...example.schema,
          ...example.policy,
          ...now,
          ...json,
        ]);
        const fromDocument = await run(['explain', '/d.json', ...now, ...json], { files });
        expect(text.code).toBe(0);
        expect(fromDocument.code).toBe(0);
        expect(fromDocument.stderr).toBe('');
        expect(fromDocument.stdout).toBe(text.stdout);
      }
      const plain = await run(['explain', '/d.json', ...now], { files });
      expect(plain.stdout).toContain("The operator's policy (every call must also pass it):");
    },
  );

  it('a document without a policy part explains as its text; with --policy as the texts', async () => {
    const document = await compiled([`${folder}/cancel.intent`, ...schema]);
    const files = { '/d.json': document };
    const alone = await run(['explain', '/d.json', ...now], { files });
    const text = await run(['explain', `${folder}/cancel.intent`, ...schema, ...now]);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toBe(text.stdout);
    expect(alone.stdout).not.toContain("The operator's policy");
    const withPolicy = await run(['explain', '/d.json', ...policy, ...now], { files });
    const texts = await run(['explain', `${folder}/cancel.intent`, ...schema, ...policy, ...now]);
    expect(withPolicy.stdout).toBe(texts.stdout);
  });

  it('a composition with another --policy (exit 2) or tampered (exit 1) explains nothing', async () => {
    const document = await compiled([`${folder}/cancel.intent`, ...schema, ...policy]);
    const second = await run(['explain', '/d.json', ...policy], { files: { '/d.json': document } });
    expect(second.code).toBe(2);
    expect(second.stdout).toBe('');
    expect(second.stderr).toContain('composes its own policy');
    const edited = JSON.parse(document) as { policy: { source: string } };
    edited.policy.source = edited.policy.source.replace('<= 100', '<= 1000');
    const tampered = await run(['explain', '/d.json'], {
      files: { '/d.json': JSON.stringify(edited) },
    });
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toBe('');
    expect(tampered.stderr).toContain('/d.json: compiled spec: $.policy');
  });
});
