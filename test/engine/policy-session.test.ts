import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  checkComposition,
  checkPolicy,
  checkSpec,
  createSession,
  loadStateSchema,
  loadToolSchema,
  type Reason,
  type Schema,
  type Spec,
  unwrap,
  type Verdict,
} from '../../src/index.js';
import { mergeSchemas } from '../../src/schema/index.js';
import { fixedNow } from './fixtures.js';

/**
 * One state, two judges (LANGUAGE.md §8), over the airline example of examples/policy:
 * its MCP tools and the host's states as one schema, its policy and an intent.
 */
const example = (name: string) =>
  readFileSync(new URL(`../../examples/policy/${name}`, import.meta.url), 'utf8');

const schema: Schema = unwrap(
  mergeSchemas(
    unwrap(loadToolSchema(example('tools.json'), { id: 'airline' })),
    unwrap(loadStateSchema(example('states.json'), { id: 'host' })),
  ),
);
const policy = unwrap(checkPolicy(example('airline.policy'), schema));
const cancelIntent = unwrap(checkSpec(example('cancel.intent'), schema));

const details = (reservation: string, user: string, insurance: string) => ({
  updates: {
    get_reservation_detailsResult: {
      reservation_id: reservation,
      user_id: user,
      cabin: 'economy',
      insurance,
    },
  },
});
const call = (name: string, args: Record<string, unknown>) => ({ action: { name, args } });
const user = (id: string) => ({ updates: { SessionUser: { user_id: id } } });

function composed(intent: Spec = cancelIntent, options: Record<string, unknown> = {}) {
  return createSession(intent, { now: fixedNow, policy, ...options });
}

function sources(verdict: Verdict): (Reason['source'] | undefined)[] {
  return verdict.reasons.map((reason) => reason.source);
}

describe('a session with a policy', () => {
  it('allows what both permit, and each side counts its own objectives', () => {
    const session = composed();
    expect(session.observe(user('mia')).ok).toBe(true);
    expect(
      session.propose(call('get_reservation_details', { reservation_id: 'ABC123' })).decision,
    ).toBe('allow');
    expect(session.observe(details('ABC123', 'mia', 'yes')).ok).toBe(true);
    const verdict = session.propose(call('cancel_reservation', { reservation_id: 'ABC123' }));
    expect(verdict.decision).toBe('allow');
    expect(verdict.performs).toEqual(['Cancelled', 'InsuredCancellation']);
    expect(verdict.achieved).toEqual({ Cancelled: 1, InsuredCancellation: 1 });
    expect(verdict.done).toBe(true);
    expect(session.status().achieved).toEqual({ Looked: 1, Cancelled: 1 });
    expect(session.status().policyAchieved).toEqual({ InsuredCancellation: 1 });
  });

  it("refuses a governed action no permission fires for: policy-violation with the closest permission's unmet conditions", () => {
    const session = composed();
    session.observe(user('mia'));
    session.propose(call('get_reservation_details', { reservation_id: 'ABC123' }));
    session.observe(details('ABC123', 'mia', 'no'));
    const verdict = session.propose(call('cancel_reservation', { reservation_id: 'ABC123' }));
    expect(verdict.decision).toBe('revise');
    expect(verdict.severity).toBe('hard');
    expect(verdict.reasons[0]).toMatchObject({ code: 'policy-violation', source: 'policy' });
    expect(verdict.reasons.every((reason) => reason.code === 'policy-violation')).toBe(true);
    expect(verdict.feedback).toMatch(
      /^The operator's policy does not permit this cancel_reservation call:/,
    );
    expect(verdict.roadmap).toMatch(/^The operator's policy refuses this call/);
    // Nothing committed: the intent's objective is not achieved.
    expect(session.status().achieved).toEqual({ Looked: 1 });
  });

  it("refuses another user's reservation even when the intent plans it (host facts)", () => {
    const session = composed();
    session.observe(user('mia'));
    session.propose(call('get_reservation_details', { reservation_id: 'ABC123' }));
    session.observe(details('ABC123', 'noah', 'yes'));
    const verdict = session.propose(call('cancel_reservation', { reservation_id: 'ABC123' }));
    expect(verdict.reasons[0]?.code).toBe('policy-violation');
    expect(verdict.reasons.some((reason) => reason.message.includes('mia'))).toBe(true);
  });

  it('the stricter wins: an intent refusal and a policy refusal are both shown, the policy first when it is the stricter', () => {
    const session = composed();
    session.observe(user('mia'));
    session.propose(call('get_reservation_details', { reservation_id: 'ABC123' }));
    session.observe(details('ABC123', 'mia', 'yes'));
    // The intent never planned this certificate (unplanned critical), and the policy rejects its amount.
    const verdict = session.propose(call('send_certificate', { user_id: 'mia', amount: 900 }));
    expect(verdict.decision).toBe('reject');
    expect(verdict.reasons.map((reason) => reason.code)).toEqual([
      'guard-reject',
      'unplanned-critical',
    ]);
    expect(sources(verdict)).toEqual(['policy', 'intent']);
    expect(verdict.feedback).toMatch(/^The policy refuses/);
    expect(verdict.feedback).toContain('not part of the plan');
  });

  it('a critical action the intent does not plan is refused though the policy permits it', () => {
    const session = composed();
    session.observe(user('mia'));
    const verdict = session.propose(call('send_certificate', { user_id: 'mia', amount: 50 }));
    expect(verdict.decision).toBe('revise');
    expect(verdict.reasons.map((reason) => [reason.code, reason.source])).toEqual([
      ['unplanned-critical', 'intent'],
    ]);
  });

  it('an action no policy rule names is not governed; the intent alone decides it', () => {
    const session = composed();
    const verdict = session.propose(call('get_reservation_details', { reservation_id: 'ABC123' }));
    expect(verdict.decision).toBe('allow');
    expect(verdict.performs).toEqual(['Looked']);
  });

  it('refused A(…) holds once the policy refused a matching proposal, so the intent can finish by telling the user', () => {
    const session = composed();
    session.observe(user('mia'));
    session.propose(call('get_reservation_details', { reservation_id: 'ABC123' }));
    session.observe(details('ABC123', 'mia', 'no'));
    expect(
      session.propose({ finish: true, answer: 'Your reservation cannot be cancelled.' }).decision,
    ).toBe('revise');
    expect(
      session.propose(call('cancel_reservation', { reservation_id: 'ABC123' })).reasons[0]?.code,
    ).toBe('policy-violation');
    const finish = session.propose({ finish: true, answer: 'Sorry: it cannot be cancelled.' });
    expect(finish.decision).toBe('allow');
    expect(session.status().finished).toBe(true);
  });

  it('refused A(…) does not hold for a refusal by the intent alone', () => {
    const session = composed();
    session.observe(user('mia'));
    // The host reports the reservation without the agent looking it up: the policy
    // permits cancelling it (insured), the intent does not yet (Looked is unmet).
    session.observe(details('ABC123', 'mia', 'yes'));
    const refused = session.propose(call('cancel_reservation', { reservation_id: 'ABC123' }));
    expect(refused.decision).toBe('revise');
    expect(sources(refused)).toEqual(refused.reasons.map(() => 'intent'));
    expect(refused.reasons[0]?.code).toBe('unmet-conditions');
    const finish = session.propose({ finish: true, answer: 'It cannot be cancelled.' });
    expect(finish.decision).toBe('revise');
    expect(finish.reasons[0]).toMatchObject({ code: 'premature-finish', source: 'intent' });
  });

  it('given facts hold from the start, the policy reads them, and neither a proposal nor an observation changes them', () => {
    const health = unwrap(
      checkSpec(
        'given TripPurpose(reason = "health")\nLooked: get_reservation_details(reservation_id = "ABC123") -> Looked\nLooked & cancel_reservation(reservation_id = "ABC123") -> Cancelled\nCancelled -> Done',
        schema,
      ),
    );
    const session = composed(health);
    session.observe(user('mia'));
    session.propose(call('get_reservation_details', { reservation_id: 'ABC123' }));
    session.observe(details('ABC123', 'mia', 'no'));
    // Not insured, but the user travels for health: the policy's second permission fires.
    const verdict = session.propose(call('cancel_reservation', { reservation_id: 'ABC123' }));
    expect(verdict.decision).toBe('allow');
    expect(verdict.performs).toEqual(['Cancelled', 'ReasonedCancellation']);

    const forging = composed();
    const forged = forging.propose({
      ...call('get_reservation_details', { reservation_id: 'ABC123' }),
      updates: { TripPurpose: { reason: 'health' } },
    });
    expect(forged.decision).toBe('revise');
    expect(forged.reasons[0]).toMatchObject({ code: 'invalid-proposal' });
    expect(forged.feedback).toContain('what the user said');
    const observed = forging.observe({ updates: { TripPurpose: { reason: 'weather' } } });
    expect(observed.ok).toBe(false);
    expect(observed.problems[0]?.message).toContain('what the user said');
  });

  it('both confirming: one confirm with all reasons, and one approval commits for both', () => {
    const intent = unwrap(
      checkSpec(
        '@confirm(financial, "Ask before compensating")\nsend_certificate(user_id = "mia", amount = 80) -> Compensated\nCompensated -> Done',
        schema,
      ),
    );
    const session = composed(intent);
    session.observe(user('mia'));
    const verdict = session.propose(call('send_certificate', { user_id: 'mia', amount: 80 }), 'c1');
    expect(verdict.decision).toBe('confirm');
    expect(verdict.reasons.map((reason) => [reason.code, reason.source])).toEqual([
      ['rule-confirm', 'intent'],
      ['rule-confirm', 'policy'],
    ]);
    expect(session.status().pending).toBe(true);
    const resolved = session.resolve(true, 'c1');
    expect(resolved.committed).toBe(true);
    expect(session.status().achieved).toEqual({ Compensated: 1 });
    expect(session.status().policyAchieved).toEqual({ Compensated: 1 });
    expect(session.status().done).toBe(true);
  });

  it('the approval is checked again by both: a policy that no longer permits commits nothing', () => {
    const intent = unwrap(
      checkSpec(
        '@confirm\nsend_certificate(user_id = "mia", amount = 80) -> Compensated\nCompensated -> Done',
        schema,
      ),
    );
    const session = composed(intent);
    session.observe(user('mia'));
    expect(session.propose(call('send_certificate', { user_id: 'mia', amount: 80 })).decision).toBe(
      'confirm',
    );
    // The host now reports another user for this session: the permission no longer fires.
    session.observe(user('noah'));
    const resolved = session.resolve(true);
    expect(resolved.committed).toBe(false);
    expect(resolved.verdict?.reasons[0]).toMatchObject({
      code: 'policy-violation',
      source: 'policy',
    });
    expect(session.status().achieved).toEqual({});
  });

  it("the policy's permissions keep §5.2's budget: a second certificate is a policy-violation", () => {
    const intent = unwrap(
      checkSpec(
        '@repeat\nsend_certificate(user_id = "mia", amount <= 100) -> Compensated\nCompensated -> Done',
        schema,
      ),
    );
    const session = composed(intent);
    session.observe(user('mia'));
    session.propose(call('send_certificate', { user_id: 'mia', amount: 50 }), 'a');
    expect(session.resolve(true, 'a').committed).toBe(true);
    const second = session.propose(call('send_certificate', { user_id: 'mia', amount: 50 }), 'b');
    expect(second.decision).toBe('revise');
    expect(second.reasons[0]).toMatchObject({ code: 'policy-violation', source: 'policy' });
    expect(second.reasons[0]?.message).toContain('already been achieved');
  });

  it("a rolled-back call gives back both sides' counts", () => {
    const session = composed(cancelIntent, { rollback: true });
    session.observe(user('mia'));
    session.propose(call('get_reservation_details', { reservation_id: 'ABC123' }));
    session.observe(details('ABC123', 'mia', 'yes'));
    session.propose(call('cancel_reservation', { reservation_id: 'ABC123' }));
    const commit = session.lastCommit();
    expect(commit).toBeDefined();
    expect(session.rollback(commit!)).toBe(true);
    expect(session.status().achieved).toEqual({ Looked: 1 });
    expect(session.status().policyAchieved).toEqual({});
  });

  it('an intent given as the policy, or a policy over another schema, is refused at creation', () => {
    expect(() => createSession(cancelIntent, { policy: cancelIntent })).toThrow(/checked policy/);
    const other = unwrap(loadStateSchema(example('states.json'), { id: 'other' }));
    const foreign = unwrap(checkPolicy('reject send_certificate(amount > 1)', schema));
    const intentOverOther = unwrap(checkSpec('TripPurpose(reason = "x") -> Done', other));
    expect(() => createSession(intentOverOther, { policy: foreign })).toThrow(/intent's schema/);
  });

  it('a policy with a Done rule does not check, so no session can hold it', () => {
    const result = checkComposition(example('cancel.intent'), 'true -> Done', schema);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toContain('done-in-policy');
  });

  it('without a policy, reasons carry no source (verdicts as before)', () => {
    const session = createSession(cancelIntent, { now: fixedNow });
    const verdict = session.propose(call('cancel_reservation', { reservation_id: 'ABC123' }));
    expect(verdict.reasons.length).toBeGreaterThan(0);
    expect(verdict.reasons.every((reason) => !('source' in reason))).toBe(true);
  });
});
