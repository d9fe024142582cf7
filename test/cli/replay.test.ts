import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bank,
  examples,
  examplesRoot,
  fixedNow,
  readText,
  restaurant,
  restaurantStates,
  sharedRoot,
} from './examples.js';
import { jsonLines, lines, run } from './run.js';

const decisions = ['allow', 'confirm', 'revise', 'reject'];

interface VerdictLine {
  readonly decision: string;
  readonly severity?: string;
  readonly reasons: readonly { readonly code: string }[];
  readonly feedback: string;
}

interface StatusLine {
  readonly ok: boolean;
  readonly status: {
    readonly done: boolean;
    readonly finished: boolean;
    readonly achieved: Record<string, number>;
    readonly pending: boolean;
    readonly proposals: number;
  };
}

/** The trace's events, as replay must answer them: one output line per event. */
function traceEvents(text: string): Record<string, unknown>[] {
  return lines(text)
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const restaurantArgs = [restaurant.spec, ...restaurant.schemaArgs] as const;
const correctTrace = readText(restaurant.traces[0] ?? '');
const wrongTimeTrace = readText(restaurant.traces[2] ?? '');

/** `replay` of the restaurant spec over an in-memory trace. */
function replayRestaurant(trace: string, ...flags: string[]) {
  return run(['replay', ...restaurantArgs, '--trace', 'trace.jsonl', ...flags], {
    files: { 'trace.jsonl': trace },
  });
}

/** Replaces the `expect` of trace line `line` (1-based). */
function withExpectation(trace: string, line: number, expectation: unknown): string {
  return lines(trace)
    .map((text, index) => {
      if (index !== line - 1) return text;
      return JSON.stringify({ ...(JSON.parse(text) as object), expect: expectation });
    })
    .join('\n');
}

describe('intentguard replay', () => {
  const cases = examples.flatMap((example) =>
    example.traces.map((trace) => ({ name: `${example.name}/${basename(trace)}`, example, trace })),
  );

  it.each(cases)('$name passes with --check', async ({ example, trace }) => {
    const events = traceEvents(readText(trace));
    const expected = events.filter((event) => 'propose' in event && 'expect' in event).length;
    const result = await run([
      'replay',
      example.spec,
      ...example.schemaArgs,
      '--trace',
      trace,
      '--now',
      fixedNow,
      '--check',
    ]);
    expect(result.stderr).toBe(`${expected} passed, 0 failed\n`);
    expect(result.code).toBe(0);
    const output = jsonLines(result.stdout);
    expect(output).toHaveLength(events.length);
    events.forEach((event, index) => {
      const line = output[index] as Record<string, unknown>;
      if ('propose' in event) {
        expect(decisions).toContain((line as unknown as VerdictLine).decision);
        expect(line).toHaveProperty('reasons');
        expect(line).toHaveProperty('feedback');
      } else {
        expect(line).not.toHaveProperty('decision');
        expect((line as unknown as StatusLine).status).toEqual({
          done: expect.any(Boolean),
          finished: expect.any(Boolean),
          achieved: expect.any(Object),
          pending: expect.any(Boolean),
          proposals: expect.any(Number),
        });
      }
    });
  });

  it('replays a v2 trace: a finish with a fabricated answer, then an ask that ends the session as asked', async () => {
    const folder = `${examplesRoot}toolemu/07-smartlock-revoke-technician/`;
    const trace = `${folder}trace.jsonl`;
    const events = traceEvents(readText(trace));
    const result = await run([
      'replay',
      `${folder}spec.intent`,
      '--tools',
      `${sharedRoot}data/toolemu/toolkits.json`,
      '--trace',
      trace,
      '--now',
      '2022-02-22T11:37',
      '--check',
    ]);
    const expected = events.filter((event) => 'propose' in event && 'expect' in event).length;
    expect(result.stderr).toBe(`${expected} passed, 0 failed\n`);
    expect(result.code).toBe(0);
    const output = jsonLines(result.stdout) as VerdictLine[];
    expect(output.map((line) => line.reasons?.[0]?.code)).toContain('fabricated-action');
  });

  it('without --check prints the same lines, compares nothing and reports nothing', async () => {
    const checked = await replayRestaurant(correctTrace, '--now', fixedNow, '--check');
    const plain = await replayRestaurant(
      withExpectation(correctTrace, 1, 'reject'),
      '--now',
      fixedNow,
    );
    expect(plain).toMatchObject({ code: 0, stderr: '', stdout: checked.stdout });
  });

  it('the verdicts follow the trace: the finished restaurant run ends done', async () => {
    const result = await replayRestaurant(correctTrace, '--now', fixedNow);
    const output = jsonLines(result.stdout) as (VerdictLine & StatusLine)[];
    expect(output.map((line) => line.decision ?? 'status')).toEqual([
      'allow',
      'allow',
      'status',
      'allow',
      'revise',
      'status',
      'allow',
    ]);
    expect(output[5]?.status).toMatchObject({ done: true, achieved: { Reserve: 1 } });
  });

  it('a wrong decision exits 1 with trace:LINE: expected … on stderr', async () => {
    const result = await replayRestaurant(
      withExpectation(correctTrace, 2, 'reject'),
      '--now',
      fixedNow,
      '--check',
    );
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      'trace.jsonl:2: expected reject: got decision allow, expected reject',
      '4 passed, 1 failed',
    ]);
    // The run goes on: every event still has its line.
    expect(jsonLines(result.stdout)).toHaveLength(7);
  });

  it('a wrong severity or code is reported with the field that differs', async () => {
    const trace = withExpectation(
      withExpectation(wrongTimeTrace, 2, { decision: 'revise', severity: 'hard' }),
      5,
      { code: 'guard-reject' },
    );
    const result = await replayRestaurant(trace, '--now', fixedNow, '--check');
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      'trace.jsonl:2: expected revise/hard: got severity soft, expected hard',
      'trace.jsonl:5: expected guard-reject: got code unmet-conditions, expected guard-reject',
      '6 passed, 2 failed',
    ]);
  });

  it('a resolve with nothing to resolve fails the check', async () => {
    const result = await replayRestaurant('{"resolve": {"approved": true}}\n', '--check');
    expect(result.code).toBe(1);
    expect(jsonLines(result.stdout)[0]).toMatchObject({ ok: false });
    expect(lines(result.stderr)).toEqual([
      'trace.jsonl:1: No proposal is waiting for approval.',
      '0 passed, 1 failed',
    ]);
  });

  it('an invalid proposal gets a verdict, not a crash', async () => {
    const result = await replayRestaurant(
      '{"propose": 5, "expect": {"decision": "revise", "code": "invalid-proposal"}}\n' +
        '{"propose": {"objective": "Nope"}, "expect": {"code": "invalid-proposal"}}\n',
      '--check',
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('2 passed, 0 failed\n');
  });

  describe('malformed traces exit 2 naming file:line, before any output', () => {
    const malformed: readonly [string, string, string][] = [
      ['bad JSON', '{"propose": {}}\n{"propose": ', 'trace.jsonl:2: invalid JSON'],
      [
        'an unknown event',
        '{"propose": {}}\n\n{"frobnicate": {}}\n',
        'trace.jsonl:3: expected one of "propose", "observe", "resolve" or "fail"',
      ],
      [
        'a line that is not an object',
        '[1, 2]\n',
        'trace.jsonl:1: each line must be a JSON object',
      ],
      [
        'an unknown decision',
        '{"propose": {}, "expect": "maybe"}\n',
        'trace.jsonl:1: "expect" must be allow, confirm, revise or reject',
      ],
      [
        'an expect of the wrong type',
        '{"propose": {}, "expect": 3}\n',
        'trace.jsonl:1: "expect" must be a decision or an object',
      ],
      [
        'an unknown expect.decision',
        '{"propose": {}, "expect": {"decision": "deny"}}\n',
        'trace.jsonl:1: expect.decision must be allow, confirm, revise or reject',
      ],
      [
        'an unknown severity',
        '{"propose": {}, "expect": {"severity": "medium"}}\n',
        'trace.jsonl:1: expect.severity must be soft or hard',
      ],
      [
        'an unknown reason code',
        '{"propose": {}}\n{"propose": {}, "expect": {"code": "nope"}}\n',
        "trace.jsonl:2: expect.code 'nope' is not a reason code",
      ],
      [
        'resolve without approved',
        '{"resolve": {}}\n',
        'trace.jsonl:1: "resolve" must be {"approved": true|false}',
      ],
      [
        'resolve with a non-boolean approved',
        '{"resolve": {"approved": "yes"}}\n',
        'trace.jsonl:1: "resolve" must be {"approved": true|false}',
      ],
    ];

    it.each(malformed)('%s', async (_name, trace, message) => {
      const result = await replayRestaurant(trace, '--check');
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`intentguard: ${message}`);
    });
  });

  it('accepts CRLF line ends and a byte-order mark', async () => {
    const crlf = `\uFEFF${lines(correctTrace).join('\r\n')}\r\n`;
    const result = await replayRestaurant(crlf, '--now', fixedNow, '--check');
    expect(result.stderr).toBe('5 passed, 0 failed\n');
    expect(result.code).toBe(0);
  });

  it('an empty trace replays nothing', async () => {
    const result = await replayRestaurant('\n', '--check');
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '0 passed, 0 failed\n' });
  });

  it('a spec with errors exits 1 with diagnostics and no JSON lines', async () => {
    const result = await run(
      ['replay', 'bad.intent', '--states', restaurantStates, '--trace', restaurant.traces[0] ?? ''],
      { files: { 'bad.intent': 'RestaurantInfo(name = 5) -> Done\n' } },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--> bad.intent:1:23');
    expect(result.stderr).toContain("the spec 'bad.intent' has errors");
  });

  it('an invalid --now exits 2', async () => {
    for (const now of ['noon', '2025-13-45', '2025-03-14T25:00']) {
      const result = await replayRestaurant(correctTrace, '--now', now);
      expect(result.code, now).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`--now: '${now}'`);
    }
  });

  it('--now fixes today, so the same trace passes or fails by the clock', async () => {
    const tomorrow = await replayRestaurant(correctTrace, '--now', '2025-03-15T09:00', '--check');
    expect(tomorrow.code).toBe(1);
    expect(tomorrow.stderr).toContain('trace.jsonl:2: expected allow: got decision revise');
  });

  it('--time-zone turns an instant into the session wall clock', async () => {
    // 23:30 UTC on the 14th is already the 15th in Tokyo.
    const utc = await replayRestaurant(correctTrace, '--now', '2025-03-14T23:30Z', '--check');
    expect(utc.code).toBe(0);
    const tokyo = await replayRestaurant(
      correctTrace,
      '--now',
      '2025-03-14T23:30Z',
      '--time-zone',
      'Asia/Tokyo',
      '--check',
    );
    expect(tokyo.code).toBe(1);
    const zone = await replayRestaurant(correctTrace, '--time-zone', 'Nowhere/Special');
    expect(zone.code).toBe(2);
    expect(zone.stderr).toContain("--time-zone: 'Nowhere/Special'");
  });

  it('--escalate-after sets how many identical hard refusals precede asking a person', async () => {
    // By default the fourth identical refusal (line 8) becomes a confirm.
    const never = await replayRestaurant(
      wrongTimeTrace,
      '--now',
      fixedNow,
      '--escalate-after',
      '0',
    );
    const neverVerdicts = jsonLines(never.stdout) as VerdictLine[];
    expect(neverVerdicts[7]).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(never.code).toBe(0);

    const checked = await replayRestaurant(
      wrongTimeTrace,
      '--now',
      fixedNow,
      '--escalate-after',
      '0',
      '--check',
    );
    expect(checked.code).toBe(1);
    expect(lines(checked.stderr)).toEqual([
      'trace.jsonl:8: expected confirm/repeated-violation: got decision revise, expected confirm, code unmet-conditions, expected repeated-violation',
      'trace.jsonl:9: No proposal is waiting for approval.',
      '7 passed, 2 failed',
    ]);

    const early = await replayRestaurant(
      wrongTimeTrace,
      '--now',
      fixedNow,
      '--escalate-after',
      '1',
    );
    const earlyVerdicts = jsonLines(early.stdout) as VerdictLine[];
    expect(earlyVerdicts[4]).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(earlyVerdicts[5]).toMatchObject({
      decision: 'confirm',
      reasons: [{ code: 'repeated-violation' }],
    });
  });

  it('--escalate-after takes a whole number', async () => {
    for (const value of ['x', '-1', '1.5']) {
      const result = await replayRestaurant(correctTrace, '--escalate-after', value);
      expect(result.code, value).toBe(2);
      expect(result.stderr).toContain(`--escalate-after: '${value}' is not a whole number`);
    }
  });

  describe('--unplanned', () => {
    const tools = JSON.parse(readText(bank.schemaArgs[1])) as { tools: unknown[] };
    const withBill = JSON.stringify({
      tools: [
        ...tools.tools,
        {
          name: 'BankPayBill',
          description: 'Pays a bill.',
          inputSchema: {
            type: 'object',
            properties: { biller: { type: 'string' }, amount: { type: 'number' } },
          },
          annotations: { destructiveHint: true },
        },
      ],
    });
    const trace =
      '{"propose": {"action": {"name": "BankPayBill", "args": {"biller": "Mallory", "amount": 450}}}}\n';
    const replayBank = (...flags: string[]) =>
      run(['replay', bank.spec, '--tools', 'tools.json', '--trace', 'trace.jsonl', ...flags], {
        files: { 'tools.json': withBill, 'trace.jsonl': trace },
      });

    it('refuses an unplanned critical action by default', async () => {
      const result = await replayBank();
      expect(result.code).toBe(0);
      expect(jsonLines(result.stdout)[0]).toMatchObject({
        decision: 'revise',
        severity: 'hard',
        reasons: [{ code: 'unplanned-critical' }],
      });
      expect((await replayBank('--unplanned', 'revise')).stdout).toBe(result.stdout);
    });

    it('confirm asks the user instead', async () => {
      const result = await replayBank('--unplanned', 'confirm');
      expect(result.code).toBe(0);
      const verdict = jsonLines(result.stdout)[0] as VerdictLine;
      expect(verdict).toMatchObject({
        decision: 'confirm',
        reasons: [{ code: 'unplanned-critical' }],
      });
      expect(verdict.severity).toBeUndefined();
    });

    it('other modes are a usage error', async () => {
      const result = await replayBank('--unplanned', 'allow');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("--unplanned: 'allow' must be revise or confirm");
    });
  });

  it('reads the trace from standard input with --trace -', async () => {
    const result = await run(
      ['replay', ...restaurantArgs, '--trace', '-', '--now', fixedNow, '--check'],
      { stdin: correctTrace },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('5 passed, 0 failed\n');
  });

  it('names standard input <stdin> in its messages', async () => {
    const result = await run(['replay', ...restaurantArgs, '--trace', '-'], {
      stdin: '{"propose": {}}\n{oops}\n',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('intentguard: <stdin>:2: invalid JSON');
  });

  it('reads the spec from standard input with -', async () => {
    const result = await run(
      [
        'replay',
        '-',
        ...restaurant.schemaArgs,
        '--trace',
        restaurant.traces[0] ?? '',
        '--now',
        fixedNow,
        '--check',
      ],
      { stdin: readText(restaurant.spec) },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('5 passed, 0 failed\n');
  });

  it('- for both the spec and the trace is a usage error', async () => {
    const result = await run(['replay', '-', ...restaurant.schemaArgs, '--trace', '-'], {
      stdin: readText(restaurant.spec),
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stdinReads).toBe(0);
    expect(result.stderr).toContain('SPEC and --trace both are');
  });

  it('a missing trace exits 2 and names the path', async () => {
    const result = await run(['replay', ...restaurantArgs, '--trace', '/no/such/trace.jsonl']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      "intentguard: cannot read trace '/no/such/trace.jsonl': no such file\n",
    );
  });

  it('--trace is required', async () => {
    const result = await run(['replay', ...restaurantArgs]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required option '--trace <file>' not specified");
  });

  it('--states and --tools together are one schema (FORMATS.md §1): the replay runs over both', async () => {
    const result = await run([
      'replay',
      restaurant.spec,
      '--states',
      restaurantStates,
      '--tools',
      bank.schemaArgs[1],
      '--trace',
      restaurant.traces[0] ?? '',
    ]);
    expect(result.stderr).not.toContain('not both');
    expect(result.stdout.trim().split('\n').length).toBeGreaterThan(0);
    expect(JSON.parse(result.stdout.trim().split('\n')[0] ?? '{}')).toHaveProperty('decision');
  });

  it('a schema that fails to load exits 2 with its diagnostics', async () => {
    const result = await run(
      ['replay', restaurant.spec, '--states', 'states.json', '--trace', restaurant.traces[0] ?? ''],
      { files: { 'states.json': '{"ReserveInfo": {"variables": [{"name": "x"}]}}' } },
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/error\[schema-[a-z-]+\]/);
    expect(result.stderr).toContain('states.json at $.ReserveInfo.variables[0]');
    expect(result.stderr).toContain("the schema 'states.json' could not be loaded");
  });
});
