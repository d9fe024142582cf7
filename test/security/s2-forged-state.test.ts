import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  checkSpec,
  createSchema,
  createSession,
  loadStateSchema,
  type Schema,
  type Session,
} from '../../src/index.js';
import { run } from '../cli/run.js';
import { sharedPath } from '../support/shared.js';
import { bankSchema, exampleText, fixedNow, restaurantSchema, specFor } from './support.js';

/**
 * S2: a states schema marks what the app reports (availability, result screens) as
 * observed; a proposal whose updates set, clear or delete an observed fact is
 * `invalid-proposal`, so the agent cannot claim its own preconditions or outcomes
 * (LANGUAGE.md §4, FORMATS.md §1). `check` warns when a spec's states schema marks
 * nothing observed.
 */
const restaurantSpec = exampleText('restaurant/spec.intent');

function restaurantSession(): Session {
  const session = createSession(specFor(restaurantSpec, restaurantSchema()), { now: fixedNow });
  expect(session.propose({ updates: { RestaurantInfo: { name: 'R' } } }).decision).toBe('allow');
  expect(
    session.propose({ updates: { ReserveInfo: { date: '2025-03-14', time: '18:00' } } }).decision,
  ).toBe('allow');
  return session;
}

function expectForged(session: Session, proposal: unknown, fact: string): void {
  const verdict = session.propose(proposal);
  expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
  expect(verdict.reasons[0]?.code).toBe('invalid-proposal');
  expect(verdict.feedback).toContain(`${fact} is observed: the app reports it`);
}

describe('S2: observed state cannot be forged in a proposal', () => {
  it("refuses the review's claim of availability after the app said it is not available", () => {
    const session = restaurantSession();
    expect(session.observe({ updates: { ReserveInfo: { available: false } } }).ok).toBe(true);
    expect(session.propose({ objective: 'Reserve' })).toMatchObject({
      decision: 'revise',
      severity: 'hard',
      reasons: [{ code: 'unmet-conditions' }],
    });
    expectForged(
      session,
      { objective: 'Reserve', updates: { ReserveInfo: { available: true } } },
      'ReserveInfo.available',
    );
    expectForged(session, { updates: { ReserveResult: { success: true } } }, 'ReserveResult');
    // Nothing the agent claimed was applied: Reserve is still out of reach, nothing is achieved.
    expect(session.propose({ objective: 'Reserve' }).reasons[0]?.code).toBe('unmet-conditions');
    expect(session.status()).toMatchObject({ achieved: {}, done: true });
    // What the app reported still decides: the "do nothing" branch is the way out.
    expect(session.propose({ finish: true }).decision).toBe('allow');
  });

  it('refuses the converse: claiming unavailability to take the "do nothing" branch', () => {
    const session = restaurantSession();
    expect(session.observe({ updates: { ReserveInfo: { available: true } } }).ok).toBe(true);
    expectForged(
      session,
      { updates: { ReserveInfo: { available: false } } },
      'ReserveInfo.available',
    );
    const finish = session.propose({ finish: true });
    expect(finish.decision).toBe('revise');
    expect(finish.reasons[0]?.code).toBe('premature-finish');
    expect(session.status().done).toBe(false);
  });

  it('refuses clearing or deleting an observed fact, and forging it before any observation', () => {
    const session = restaurantSession();
    expectForged(
      session,
      { updates: { ReserveInfo: { available: null } } },
      'ReserveInfo.available',
    );
    expectForged(
      session,
      { updates: [{ predicate: 'ReserveResult', op: 'delete' }] },
      'ReserveResult',
    );
    expectForged(
      session,
      { objective: 'Reserve', updates: { ReserveInfo: { time: '18:30', available: true } } },
      'ReserveInfo.available',
    );
    // The agent's own choices in the same predicate stay proposable.
    expect(session.propose({ updates: { ReserveInfo: { time: '18:30' } } }).decision).toBe('allow');
  });

  it('lets the app report what the agent cannot claim, and the task proceeds on it', () => {
    const session = restaurantSession();
    expect(session.observe({ updates: { ReserveInfo: { available: true } } }).ok).toBe(true);
    expect(session.propose({ objective: 'Reserve' }).decision).toBe('allow');
    expect(session.propose({ finish: true }).reasons[0]?.code).toBe('premature-finish');
    expect(session.observe({ updates: { ReserveResult: { success: true } } }).ok).toBe(true);
    expect(session.propose({ finish: true }).decision).toBe('allow');
  });

  it('keeps tool results observed: they are never proposed', () => {
    const session = createSession(specFor(exampleText('bank-transfer/spec.intent'), bankSchema()), {
      now: fixedNow,
    });
    const verdict = session.propose({ updates: { BankCheckBalanceResult: { balance: 5000 } } });
    expect(verdict.reasons[0]?.code).toBe('invalid-proposal');
    expect(bankSchema().predicates.get('BankCheckBalanceResult')?.observed).toBe(true);
  });
});

describe('S2: check warns when a states schema marks nothing observed', () => {
  const unmarked = readFileSync(sharedPath('examples/restaurant/states.json'), 'utf8');

  function unmarkedSchema(): Schema {
    const loaded = loadStateSchema(unmarked);
    if (!loaded.ok) throw new Error('the shared restaurant states do not load');
    return loaded.value;
  }

  it('warns library callers of checkSpec, at the first state pattern of a rule', () => {
    const checked = checkSpec(restaurantSpec, unmarkedSchema());
    expect(checked.ok).toBe(true);
    const warnings = checked.value?.warnings ?? [];
    expect(warnings.map((warning) => warning.code)).toEqual(['no-observed-state']);
    expect(warnings[0]).toMatchObject({
      severity: 'warning',
      range: { start: { line: 2, column: 5 } },
    });
    expect(warnings[0]?.hint).toContain('"observed": true');
  });

  it('does not warn once one fact is observed, for tool schemas, or for specs needing no state', () => {
    expect(checkSpec(restaurantSpec, restaurantSchema()).diagnostics).toEqual([]);
    expect(checkSpec(exampleText('bank-transfer/spec.intent'), bankSchema()).diagnostics).toEqual(
      [],
    );
    const actionsOnly = createSchema('actions', [
      {
        name: 'Send',
        kind: 'action',
        description: 'Sends.',
        variables: [],
        keys: [],
        critical: true,
      },
    ]);
    expect(checkSpec('Send() -> Sent\nSent -> Done', actionsOnly).diagnostics).toEqual([]);
  });

  it('leaves the warning out while the spec has errors', () => {
    const checked = checkSpec(
      'R1: RestaurantInfo(name = 5) -> Reserve\nReserve -> Done',
      unmarkedSchema(),
    );
    expect(checked.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['type-mismatch']);
  });

  it('intentguard check prints it with its location and exits 0; --json carries its code', async () => {
    const files = { 'unmarked.json': unmarked, 'spec.intent': restaurantSpec };
    const result = await run(['check', 'spec.intent', '--states', 'unmarked.json'], { files });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^warning\[no-observed-state\]/);
    expect(result.stdout).toContain('--> spec.intent:2:5');
    expect(result.stdout).toContain('spec.intent: ok — 0 errors, 1 warning\n');
    const json = await run(['check', 'spec.intent', '--states', 'unmarked.json', '--json'], {
      files,
    });
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: true,
      warnings: 1,
      diagnostics: [{ code: 'no-observed-state', severity: 'warning', file: 'spec.intent' }],
    });
    const marked = await run(['check', 'spec.intent', '--states', 'states.json'], {
      files: {
        'spec.intent': restaurantSpec,
        'states.json': exampleText('restaurant/states.json'),
      },
    });
    expect(marked.stdout).toBe('spec.intent: ok — 0 errors, 0 warnings\n');
  });

  it('replay refuses the forged availability through the CLI too', async () => {
    const trace = [
      { propose: { updates: { RestaurantInfo: { name: 'R' } } }, expect: 'allow' },
      { propose: { updates: { ReserveInfo: { date: '2025-03-14', time: '18:00' } } } },
      { observe: { updates: { ReserveInfo: { available: false } } } },
      {
        propose: { objective: 'Reserve', updates: { ReserveInfo: { available: true } } },
        expect: { decision: 'revise', severity: 'hard', code: 'invalid-proposal' },
      },
      {
        propose: { updates: { ReserveResult: { success: true } } },
        expect: { decision: 'revise', severity: 'hard', code: 'invalid-proposal' },
      },
    ]
      .map((event) => JSON.stringify(event))
      .join('\n');
    const result = await run(
      [
        'replay',
        'spec.intent',
        '--states',
        'states.json',
        '--trace',
        'trace.jsonl',
        '--now',
        fixedNow,
        '--check',
      ],
      {
        files: {
          'spec.intent': restaurantSpec,
          'states.json': exampleText('restaurant/states.json'),
          'trace.jsonl': `${trace}\n`,
        },
      },
    );
    expect(result.stderr).toContain('3 passed, 0 failed');
    expect(result.code).toBe(0);
  });
});
