import { describe, expect, it } from 'vitest';
import { airline, airlineSession } from '../../test/support/airline.js';
import { compiledPathChecks } from '../language/check-compiled-paths.js';
import { CompiledSpecError } from '../language/compiled-spec-format.js';
import { checkSpec } from '../language/index.js';
import { readCompiledSpec } from '../language/read-compiled-spec.js';
import { compileRegex } from '../language/regex.js';
import { writeCompiledSpec } from '../language/write-compiled-spec.js';
import { createSession } from './session-all-parts.js';

/*
 * Conditions on bindings inside `not (…)` and `forall(…)` (LANGUAGE.md §9): "the cheapest",
 * "the earliest", "every … within the budget" — what τ-bench's instructions ask and a
 * comparison outside a scope cannot say. On the airline tools, with what the user paid.
 */

const reservation = (reservation_id: string, paid: readonly unknown[]) => ({
  reservation_id,
  user_id: 'chen_lee_6825',
  cabin: 'economy',
  status: 'active',
  payment_history: paid.map((amount, index) => ({ payment_id: `gift_card_${index}`, amount })),
});
const details = (...reservations: ReturnType<typeof reservation>[]) => ({
  updates: { get_reservation_detailsResult: reservations },
});
const cancel = (reservation_id: string) => ({
  action: { name: 'cancel_reservation', args: { reservation_id } },
});

// "Cancel the reservation I paid the least for."
const cheapest = `
  get_reservation_detailsResult(reservation_id = $r, sum(payment_history.amount) = $paid)
    & not (get_reservation_detailsResult(sum(payment_history.amount) = $other) & $other < $paid)
    & cancel_reservation(reservation_id = $r) -> Cancelled
  Cancelled -> Done`;

describe('conditions on bindings inside a scope (LANGUAGE.md §9)', () => {
  it('"the cheapest": only the reservation no other undercuts may be cancelled', () => {
    const s = airlineSession(cheapest);
    s.observe(
      details(
        reservation('AAA111', [300]),
        reservation('BBB222', [120, 80]),
        reservation('CCC333', [450]),
      ),
    );
    const dearer = s.propose(cancel('AAA111'));
    expect(dearer.decision).toBe('revise');
    // The feedback names what undercuts it, in the scope's words.
    expect(dearer.feedback).toMatch(/\$other = 200/);
    expect(dearer.feedback).toMatch(/where \$other is less than \$paid/);
    expect(s.propose(cancel('CCC333')).decision).toBe('revise');
    expect(s.propose(cancel('BBB222')).decision).toBe('allow');
  });

  it('a tie is no undercut: both of the least may be cancelled', () => {
    for (const id of ['AAA111', 'BBB222']) {
      const s = airlineSession(cheapest);
      s.observe(details(reservation('AAA111', [200]), reservation('BBB222', [200])));
      expect(s.propose(cancel(id)).decision).toBe('allow');
    }
  });

  it('an amount that does not add up counts as undercutting: doubt never lets the rule fire', () => {
    const s = airlineSession(cheapest);
    s.observe(details(reservation('AAA111', [100]), reservation('BBB222', ['a lot'])));
    expect(s.propose(cancel('AAA111')).decision).toBe('revise');
  });

  it('forall with conditions alone on the right: every reservation within the budget', () => {
    const text = `
      get_user_detailsResult(user_id = $u)
        & forall(get_user_detailsResult(user_id = $u, reservations = $r)
            & get_reservation_detailsResult(reservation_id = $r, sum(payment_history.amount) = $paid)
            => $paid <= 500)
        & send_certificate(user_id = $u) -> Sent
      Sent -> Done`;
    const certificate = {
      action: { name: 'send_certificate', args: { user_id: 'u1', amount: 50 } },
    };
    const s = airlineSession(text);
    s.observe({
      updates: { get_user_detailsResult: { user_id: 'u1', reservations: ['AAA111', 'BBB222'] } },
    });
    s.observe(details(reservation('AAA111', [300]), reservation('BBB222', [400, 200])));
    const over = s.propose(certificate);
    expect(over.decision).toBe('revise');
    expect(over.feedback).toContain('BBB222');
    expect(over.feedback).toMatch(/: \$paid is at most 500/);
    s.observe(details(reservation('BBB222', [400])));
    expect(s.propose(certificate).decision).toBe('allow');
  });

  it('the checker requires every binding of a condition inside to be bound there or outside', () => {
    const result = checkSpec(
      `get_reservation_detailsResult(reservation_id = $r) & not (get_reservation_detailsResult(sum(payment_history.amount) = $other) & $other < $budget) & cancel_reservation(reservation_id = $r) -> Cancelled
       Cancelled -> Done`,
      airline,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.diagnostics.map((item) => item.code)).toContain('unbound-comparison');
  });

  it('compiled specs carry them; a changed kind is refused where it was changed', () => {
    const checked = checkSpec(cheapest, airline);
    if (!checked.ok) throw new Error('the spec does not check');
    const document = JSON.parse(JSON.stringify(writeCompiledSpec(checked.value)));
    const options = { regex: compileRegex, pathCheck: compiledPathChecks };
    const back = readCompiledSpec(document, options);
    const verdicts = (spec: typeof back) => {
      const s = createSession(spec, { now: '2024-05-15T15:00' });
      s.observe(details(reservation('AAA111', [300]), reservation('BBB222', [200])));
      return ['AAA111', 'BBB222'].map((id) => s.propose(cancel(id)).decision);
    };
    expect(verdicts(back)).toEqual(['revise', 'allow']);
    expect(verdicts(back)).toEqual(verdicts(checked.value));
    document.rules[0].scopes[0].comparisons[0].kind = 'text';
    expect(() => readCompiledSpec(document, options)).toThrow(CompiledSpecError);
    try {
      readCompiledSpec(document, options);
    } catch (error) {
      expect((error as CompiledSpecError).path).toBe('$.rules[0].scopes[0].comparisons[0].kind');
    }
    delete document.rules[0].scopes[0].comparisons[0].kind;
    document.rules[0].scopes[0].comparisons[0].left = { kind: 'binding', name: 'nowhere' };
    expect(() => readCompiledSpec(document, options)).toThrow(/before anything binds it/);
  });
});
