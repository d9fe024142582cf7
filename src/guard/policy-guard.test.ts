import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IntentguardDiagnosticsError, unwrap } from '../language/index.js';
import { loadStateSchema, loadToolSchema, mergeSchemas } from '../schema/index.js';
import { createGuard, restoreGuard } from './create-guard.js';

/** A guard with the operator's policy (LANGUAGE.md §8), over examples/policy. */
const example = (name: string) =>
  readFileSync(new URL(`../../examples/policy/${name}`, import.meta.url), 'utf8');
const schema = unwrap(
  mergeSchemas(
    unwrap(loadToolSchema(example('tools.json'), { id: 'airline' })),
    unwrap(loadStateSchema(example('states.json'), { id: 'host' })),
  ),
);

describe('createGuard(intent, schema, { policy })', () => {
  it('holds back a call the intent plans and the policy does not permit, saying why', () => {
    const guard = createGuard(example('cancel.intent'), schema, {
      now: '2024-05-15T15:00',
      policy: example('airline.policy'),
    });
    expect(guard.observe({ SessionUser: { user_id: 'mia' } }).ok).toBe(true);
    const look = guard.check({
      id: 'c1',
      name: 'get_reservation_details',
      args: { reservation_id: 'ABC123' },
    });
    expect(look.action).toBe('run');
    guard.result('c1', {
      output: { reservation_id: 'ABC123', user_id: 'noah', cabin: 'economy', insurance: 'yes' },
    });
    const cancel = guard.check({
      id: 'c2',
      name: 'cancel_reservation',
      args: { reservation_id: 'ABC123' },
    });
    expect(cancel.action).not.toBe('run');
    expect(cancel.verdict.reasons[0]).toMatchObject({ code: 'policy-violation', source: 'policy' });
    expect(cancel.verdict.feedback).toContain('"mia"');
  });

  it('runs what both permit', () => {
    const guard = createGuard(example('cancel.intent'), schema, {
      now: '2024-05-15T15:00',
      policy: example('airline.policy'),
    });
    expect(guard.observe({ SessionUser: { user_id: 'mia' } }).ok).toBe(true);
    guard.check({ id: 'c1', name: 'get_reservation_details', args: { reservation_id: 'ABC123' } });
    guard.result('c1', {
      output: { reservation_id: 'ABC123', user_id: 'mia', cabin: 'economy', insurance: 'yes' },
    });
    const cancel = guard.check({
      id: 'c2',
      name: 'cancel_reservation',
      args: { reservation_id: 'ABC123' },
    });
    expect(cancel.action, cancel.verdict.feedback).toBe('run');
  });

  it('a policy text that does not check makes no guard (fail closed)', () => {
    expect(() => createGuard(example('cancel.intent'), schema, { policy: 'true -> Done' })).toThrow(
      IntentguardDiagnosticsError,
    );
  });
});

describe('restoreGuard(spec, schema, journal, { policy })', () => {
  function refusedRun() {
    const guard = createGuard(example('cancel.intent'), schema, {
      now: '2024-05-15T15:00',
      policy: example('airline.policy'),
    });
    guard.observe({ SessionUser: { user_id: 'mia' } });
    guard.check({ id: 'c1', name: 'get_reservation_details', args: { reservation_id: 'ABC123' } });
    guard.result('c1', {
      output: { reservation_id: 'ABC123', user_id: 'mia', cabin: 'economy', insurance: 'no' },
    });
    const cancel = guard.check({
      id: 'c2',
      name: 'cancel_reservation',
      args: { reservation_id: 'ABC123' },
    });
    return { journal: guard.journal(), cancel };
  }

  it('takes the policy as text, checked, and decides as the run that wrote the journal', () => {
    const { journal, cancel } = refusedRun();
    expect(cancel.verdict.reasons[0]?.source).toBe('policy');
    const restored = restoreGuard(example('cancel.intent'), schema, journal, {
      policy: example('airline.policy'),
    });
    expect(
      restored.check({ id: 'c2', name: 'cancel_reservation', args: { reservation_id: 'ABC123' } }),
    ).toEqual(cancel);
  });

  it('refuses to restore without the policy, or with one that does not check', () => {
    const { journal } = refusedRun();
    expect(() => restoreGuard(example('cancel.intent'), schema, journal)).toThrow(
      /does not replay as recorded/,
    );
    expect(() =>
      restoreGuard(example('cancel.intent'), schema, journal, { policy: 'Looked -> Done' }),
    ).toThrow(IntentguardDiagnosticsError);
  });
});
