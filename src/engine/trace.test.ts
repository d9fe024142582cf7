import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultLimits } from '../language/index.js';
import {
  describeExpectation,
  expectationMismatch,
  formatTrace,
  parseTrace,
  readTrace,
  type TraceEvent,
  type TraceProblem,
  traceProblemCodes,
} from './trace.js';
import type { Verdict } from './verdict.js';

const transfer = { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } };

function problemsOf(text: string): readonly TraceProblem[] {
  const result = parseTrace(text);
  expect(result.ok).toBe(false);
  return result.diagnostics;
}

function onlyProblem(text: string): TraceProblem {
  const problems = problemsOf(text);
  expect(problems).toHaveLength(1);
  return problems[0]!;
}

describe('parseTrace', () => {
  it('reads every kind of event, with call ids, and the line of each', () => {
    const text = [
      '{"propose": {"action": {"name": "BankCheckBalance", "args": {}}}, "id": "call_1", "expect": "allow"}',
      '',
      '{"observe": {"updates": {"BankCheckBalanceResult": {"balance": 1500}}}, "id": "call_1"}',
      `{"propose": ${JSON.stringify(transfer)}, "id": "call_2", "expect": {"decision": "confirm", "code": "rule-confirm"}}`,
      '{"resolve": {"approved": true}, "id": "call_2"}',
      '{"fail": {"id": "call_2"}}',
      '{"observe": {"updates": {}}, "expect": {"ok": false}}',
      '{"resolve": {"approved": false}}',
      '',
    ].join('\n');
    const result = parseTrace(text);
    expect(result).toEqual({
      ok: true,
      diagnostics: [],
      value: {
        events: [
          {
            propose: { action: { name: 'BankCheckBalance', args: {} } },
            id: 'call_1',
            expect: 'allow',
          },
          { observe: { updates: { BankCheckBalanceResult: { balance: 1500 } } }, id: 'call_1' },
          {
            propose: transfer,
            id: 'call_2',
            expect: { decision: 'confirm', code: 'rule-confirm' },
          },
          { resolve: { approved: true }, id: 'call_2' },
          { fail: { id: 'call_2' } },
          { observe: { updates: {} }, expect: { ok: false } },
          { resolve: { approved: false } },
        ],
        lines: [1, 3, 4, 5, 6, 7, 8],
      },
    });
  });

  it('skips a byte-order mark and accepts CRLF line ends', () => {
    const result = parseTrace('\uFEFF{"propose": {}}\r\n{"resolve": {"approved": true}}\r\n');
    expect(result.value?.events).toEqual([{ propose: {} }, { resolve: { approved: true } }]);
  });

  it('reads an empty trace as no events', () => {
    expect(parseTrace('')).toEqual({ ok: true, value: { events: [], lines: [] }, diagnostics: [] });
    expect(parseTrace('\n  \n').value?.events).toEqual([]);
  });

  it.each<[string, string, Partial<TraceProblem>]>([
    ['invalid JSON', '{"propose": ', { code: 'invalid-json' }],
    ['a line that is not an object', '[1, 2]', { code: 'not-an-object' }],
    [
      'a line without an event, with the closest key',
      '{"Propose": {}}',
      {
        code: 'missing-event',
        message:
          'expected one of "propose", "observe", "resolve" or "fail"; found "Propose" (did you mean "propose"?)',
      },
    ],
    [
      'a line with two events',
      '{"propose": {}, "fail": {"id": "a"}}',
      {
        code: 'several-events',
        message: 'a line holds one event, but this one has "propose" and "fail"',
      },
    ],
    [
      'a misspelt key',
      '{"propose": {}, "expected": "allow"}',
      {
        code: 'unknown-key',
        message:
          'unknown key "expected" in a "propose" line (did you mean "expect"?); known keys: propose, expect, id',
      },
    ],
    [
      'an id on a fail line outside fail',
      '{"propose": {}, "id": "a"}\n{"fail": {"id": "a"}, "id": "a"}',
      { code: 'unknown-key', line: 2 },
    ],
    [
      'a misspelt expect key',
      '{"propose": {}, "expect": {"decison": "allow"}}',
      { code: 'unknown-key' },
    ],
    ['an unknown decision', '{"propose": {}, "expect": "maybe"}', { code: 'invalid-expectation' }],
    [
      'an unknown reason code',
      '{"propose": {}, "expect": {"code": "nope"}}',
      { code: 'invalid-expectation' },
    ],
    [
      'an unknown severity',
      '{"propose": {}, "expect": {"severity": "mild"}}',
      { code: 'invalid-expectation' },
    ],
    [
      'an observation expectation without ok',
      '{"observe": {}, "expect": {}}',
      { code: 'invalid-expectation' },
    ],
    ['resolve without approved', '{"resolve": {}}', { code: 'invalid-resolve' }],
    [
      'resolve with another key',
      '{"resolve": {"approved": true, "aproved": false}}',
      { code: 'unknown-key' },
    ],
    ['a numeric id', '{"propose": {}, "id": 7}', { code: 'invalid-id' }],
    ['an empty id', '{"observe": {}, "id": ""}', { code: 'invalid-id' }],
    ['fail without an id', '{"fail": {}}', { code: 'invalid-fail' }],
    ['fail that is not an object', '{"fail": "a"}', { code: 'invalid-fail' }],
    ['fail with a numeric id', '{"fail": {"id": 3}}', { code: 'invalid-id' }],
    [
      'fail of an id nothing proposed',
      '{"propose": {}, "id": "a"}\n{"fail": {"id": "b"}}',
      {
        code: 'unknown-call',
        line: 2,
        message: 'fail.id "b" names no call: no earlier "propose" line has this id',
      },
    ],
    [
      'fail before the proposal',
      '{"fail": {"id": "a"}}\n{"propose": {}, "id": "a"}',
      { code: 'unknown-call', line: 1 },
    ],
  ])('refuses %s', (_name, text, expected) => {
    expect(onlyProblem(text)).toMatchObject({ line: 1, ...expected });
  });

  it('refuses ambiguous JSON with the column of the key or number', () => {
    const line = `{"propose": {"action": {"name": "T", "args": {"amount": 900, "amount": 500}}}}`;
    expect(onlyProblem(`{"propose": {}}\n${line}`)).toMatchObject({
      code: 'ambiguous-json',
      line: 2,
      column: line.lastIndexOf('"amount"') + 1,
    });
    expect(onlyProblem('{"propose": {"n": 12345678901234567890123}}')).toMatchObject({
      code: 'ambiguous-json',
      column: 19,
    });
  });

  it('collects one problem per bad line, in order, and keeps reading', () => {
    const problems = problemsOf('{"x": 1}\n{"propose": {}}\n[]\n{"resolve": {}}\n');
    expect(problems.map((problem) => [problem.line, problem.code])).toEqual([
      [1, 'missing-event'],
      [3, 'not-an-object'],
      [4, 'invalid-resolve'],
    ]);
  });

  it('stops after limits.maxDiagnostics problems', () => {
    const limit = defaultLimits.maxDiagnostics;
    const problems = problemsOf('[]\n'.repeat(limit * 3));
    expect(problems).toHaveLength(limit + 1);
    expect(problems.at(-1)).toMatchObject({ code: 'too-many-problems', line: limit + 1 });
  });

  it('answers text that is not a string with a problem, not a throw', () => {
    expect(parseTrace(42 as unknown as string)).toMatchObject({
      ok: false,
      diagnostics: [{ code: 'invalid-json' }],
    });
  });

  it('uses only catalogued codes', () => {
    const text = '{"x": 1}\n[]\n{"propose": }\n{"fail": {"id": "q"}}';
    for (const problem of problemsOf(text)) expect(traceProblemCodes).toContain(problem.code);
  });
});

describe('readTrace', () => {
  it('reads events that are already JSON values, with the same checks', () => {
    const events: unknown[] = [{ propose: transfer, id: 'a' }, { fail: { id: 'a' } }];
    const result = readTrace(events);
    expect(result.value).toEqual({ events, lines: [1, 2] });
    // Fresh objects: mutating the input later does not change what was read.
    expect(result.value?.events[0]).not.toBe(events[0]);
    expect(readTrace([{ propose: {} }, { propose: {}, expect: 'nope' }]).diagnostics).toEqual([
      {
        code: 'invalid-expectation',
        message: '"expect" must be allow, confirm, revise or reject',
        line: 2,
      },
    ]);
    expect(readTrace('x' as unknown as unknown[]).ok).toBe(false);
  });
});

describe('formatTrace', () => {
  it('writes one line per event: the event key first, then id and expect', () => {
    const events: TraceEvent[] = [
      { expect: 'allow', id: 'a', propose: { finish: true } },
      { observe: { updates: {} } },
      { id: 'a', resolve: { approved: true } },
      { fail: { id: 'a' } },
    ];
    expect(formatTrace(events)).toBe(
      [
        '{"propose":{"finish":true},"id":"a","expect":"allow"}',
        '{"observe":{"updates":{}}}',
        '{"resolve":{"approved":true},"id":"a"}',
        '{"fail":{"id":"a"}}',
        '',
      ].join('\n'),
    );
    expect(formatTrace([])).toBe('');
  });

  it('round-trips: parseTrace(formatTrace(events)) gives the events back', () => {
    // JSON values as a JSON parser gives them (no -0, no undefined).
    const json = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown);
    const id = fc.string({ minLength: 1, maxLength: 12 });
    const expectation = fc.oneof(
      fc.constantFrom('allow', 'confirm', 'revise', 'reject' as const),
      fc.record(
        {
          decision: fc.constantFrom('allow', 'confirm', 'revise', 'reject' as const),
          severity: fc.constantFrom('soft', 'hard' as const),
          code: fc.constantFrom('unmet-conditions', 'guard-reject' as const),
        },
        { requiredKeys: [] },
      ),
    );
    const event: fc.Arbitrary<TraceEvent> = fc.oneof(
      fc.record({ propose: json, id, expect: expectation }, { requiredKeys: ['propose'] }),
      fc.record(
        { observe: json, id, expect: fc.record({ ok: fc.boolean() }) },
        { requiredKeys: ['observe'] },
      ),
      fc.record(
        { resolve: fc.record({ approved: fc.boolean() }), id },
        { requiredKeys: ['resolve'] },
      ),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), fc.boolean(), (generated, withFailures) => {
        // A fail follows every proposal with an id when asked: it must name an earlier one.
        const events = generated.flatMap((item): TraceEvent[] =>
          withFailures && 'propose' in item && item.id !== undefined
            ? [item, { fail: { id: item.id } }]
            : [item],
        );
        const result = parseTrace(formatTrace(events));
        expect(result.diagnostics).toEqual([]);
        expect(result.value?.events).toEqual(events);
        expect(result.value?.lines).toEqual(events.map((_, index) => index + 1));
      }),
      { numRuns: 300 },
    );
  });
});

describe('expectations', () => {
  const verdict: Verdict = {
    decision: 'revise',
    severity: 'hard',
    reasons: [{ code: 'unmet-conditions', message: 'no' }],
    performs: [],
    achieved: {},
    done: false,
    feedback: 'no',
  };

  it('lists what differs from a verdict, and nothing when it matches', () => {
    expect(expectationMismatch(verdict, 'revise')).toEqual([]);
    expect(expectationMismatch(verdict, { severity: 'hard', code: 'unmet-conditions' })).toEqual(
      [],
    );
    expect(
      expectationMismatch(verdict, { decision: 'allow', severity: 'soft', code: 'guard-reject' }),
    ).toEqual([
      'decision revise, expected allow',
      'severity hard, expected soft',
      'code unmet-conditions, expected guard-reject',
    ]);
  });

  it('describes an expectation as decision/severity/code', () => {
    expect(describeExpectation('allow')).toBe('allow');
    expect(describeExpectation({ decision: 'revise', code: 'unmet-conditions' })).toBe(
      'revise/unmet-conditions',
    );
  });
});
