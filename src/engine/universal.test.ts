import { describe, expect, it } from 'vitest';
import { airline, airlineSession } from '../../test/support/airline.js';
import { checkSpec } from '../language/index.js';
import { explainSpec } from './explain.js';

/*
 * Scoped negation and universals (LANGUAGE.md §9) on the τ-bench airline tools: Done over
 * a set ("cancel all my upcoming flights"), `not (A & B)` with local and outer bindings,
 * and the readings that keep doubt from letting a rule fire.
 */

const schema = airline;
const session = airlineSession;

const user = (reservations: string[]) => ({
  get_user_detailsResult: { user_id: 'amelia_davis_8890', name: 'Amelia', reservations },
});
const details = (reservation_id: string, cabin: string, extra: Record<string, unknown> = {}) => ({
  get_reservation_detailsResult: {
    reservation_id,
    user_id: 'amelia_davis_8890',
    cabin,
    status: 'active',
    ...extra,
  },
});
const cancelled = (reservation_id: string) => ({
  cancel_reservationResult: { reservation_id, status: 'cancelled' },
});
const cancel = (reservation_id: string) => ({
  action: { name: 'cancel_reservation', args: { reservation_id } },
});

// "Cancel all my business reservations": Done once each business reservation the details
// show has been cancelled (task 28's "all", which v2 could not say).
const allBusiness = `
  @repeat
  get_reservation_detailsResult(reservation_id = $r, cabin = business) & cancel_reservation(reservation_id = $r) -> Cancelled
  get_user_detailsResult(user_id = $u) & forall(get_user_detailsResult(user_id = $u, reservations = $r) & get_reservation_detailsResult(reservation_id = $r, cabin = business) => cancel_reservationResult(reservation_id = $r, status = "cancelled")) -> Done`;

describe('forall: Done over a set (LANGUAGE.md §9)', () => {
  it('is reached only when every instance the left side gives meets the right side', () => {
    const s = session(allBusiness);
    s.observe({ updates: user(['AAA111', 'BBB222', 'CCC333']) });
    s.observe({ updates: details('AAA111', 'business') });
    s.observe({ updates: details('BBB222', 'economy') });
    s.observe({ updates: details('CCC333', 'business') });
    expect(s.status().done).toBe(false);
    expect(s.propose(cancel('AAA111')).decision).toBe('allow');
    s.observe({ updates: cancelled('AAA111') });
    const early = s.propose({ finish: true });
    expect(early.decision).toBe('revise');
    expect(early.feedback).toContain('CCC333');
    expect(early.feedback).not.toContain('AAA111');
    expect(s.propose(cancel('CCC333')).decision).toBe('allow');
    s.observe({ updates: cancelled('CCC333') });
    expect(s.status().done).toBe(true);
    expect(s.propose({ finish: true }).decision).toBe('allow');
  });

  it('is exactly not (A & not (B)): the two spellings give the same verdicts', () => {
    const spelled = allBusiness.replace(
      /forall\((.*) => (.*)\) -> Done/,
      (_all, condition: string, conclusion: string) =>
        `not (${condition} & not (${conclusion})) -> Done`,
    );
    expect(spelled).toContain('not (get_user_detailsResult');
    for (const text of [allBusiness, spelled]) {
      const s = session(text);
      s.observe({ updates: user(['AAA111']) });
      s.observe({ updates: details('AAA111', 'business') });
      expect(s.status().done).toBe(false);
      s.observe({ updates: cancelled('AAA111') });
      expect(s.status().done).toBe(true);
    }
  });

  it('holds vacuously when the left side gives nothing, which is why the rule pins the user', () => {
    const s = session(allBusiness);
    expect(s.status().done).toBe(false);
    s.observe({ updates: user(['BBB222']) });
    s.observe({ updates: details('BBB222', 'economy') });
    expect(s.status().done).toBe(true);
  });

  it('counts a result that came and could not be read as one still to do (fail closed)', () => {
    const s = session(allBusiness);
    s.observe({ updates: user(['AAA111']) });
    // The details of AAA111 do not report the cabin: it may be business.
    s.observe({
      updates: {
        get_reservation_detailsResult: { reservation_id: 'AAA111', user_id: 'amelia_davis_8890' },
      },
    });
    expect(s.status().done).toBe(false);
    s.observe({ updates: cancelled('AAA111') });
    expect(s.status().done).toBe(true);
  });

  it('requires the right side strictly: a cancellation result without its status is not one', () => {
    const s = session(allBusiness);
    s.observe({ updates: user(['AAA111']) });
    s.observe({ updates: details('AAA111', 'business') });
    s.observe({ updates: { cancel_reservationResult: { reservation_id: 'AAA111' } } });
    expect(s.status().done).toBe(false);
  });
});

describe('scoped not (LANGUAGE.md §9)', () => {
  // Never cancel a reservation whose details show business and no insurance together.
  const spec = `
    SessionUser(user_id = $u) & cancel_reservation(reservation_id = $r) & not (get_reservation_detailsResult(reservation_id = $r, cabin = business) & get_reservation_detailsResult(reservation_id = $r, insurance = no)) -> Cancelled
    Cancelled -> Done`;
  const start = () => {
    const s = session(spec);
    s.observe({ updates: { SessionUser: { user_id: 'amelia_davis_8890' } } });
    return s;
  };

  it('uses the bindings made outside it: only the proposed reservation is judged', () => {
    const s = start();
    s.observe({ updates: details('AAA111', 'business', { insurance: 'no' }) });
    s.observe({ updates: details('BBB222', 'business', { insurance: 'yes' }) });
    expect(s.propose(cancel('AAA111')).decision).toBe('revise');
    expect(s.propose(cancel('BBB222')).decision).toBe('allow');
  });

  it('needs all its atoms together: each alone does not refuse', () => {
    const s = start();
    s.observe({ updates: details('AAA111', 'economy', { insurance: 'no' }) });
    expect(s.propose(cancel('AAA111')).decision).toBe('allow');
  });

  it('keeps the bindings made inside local: a sibling scope reuses the name freely', () => {
    const local = session(`
      SessionUser(user_id = $u) & cancel_reservation(reservation_id = $r) & not (get_user_detailsResult(user_id = $u, reservations = $x) & get_reservation_detailsResult(reservation_id = $x, status = "pending")) & not (cancel_reservationResult(reservation_id = $x) & get_reservation_detailsResult(reservation_id = $x, cabin = business)) -> Cancelled
      Cancelled -> Done`);
    local.observe({ updates: { SessionUser: { user_id: 'amelia_davis_8890' } } });
    local.observe({ updates: user(['AAA111', 'BBB222']) });
    local.observe({ updates: details('AAA111', 'economy') });
    local.observe({ updates: cancelled('BBB222') });
    local.observe({ updates: details('BBB222', 'economy') });
    expect(local.propose(cancel('AAA111')).decision).toBe('allow');
    // A pending reservation of the user's: the first scope finds an $x.
    local.observe({ updates: details('AAA111', 'economy', { status: 'pending' }) });
    expect(local.propose(cancel('AAA111')).decision).toBe('revise');
  });

  it('keeps the v2 meaning of a scope of one pattern: it is `not P(…)`', () => {
    const one = checkSpec(
      'SessionUser(user_id = $u) & cancel_reservation(reservation_id = $r) & not (get_reservation_detailsResult(reservation_id = $r, cabin = business)) -> Cancelled\nCancelled -> Done',
      schema,
    );
    expect(one.ok).toBe(true);
    if (!one.ok) return;
    expect(one.value.rules[0]?.negations).toHaveLength(1);
    expect(one.value.rules[0]?.scopes).toBeUndefined();
  });
});

describe('explain (LANGUAGE.md §9)', () => {
  it('renders not (…) as "no … together with …" and forall as "every … also …"', () => {
    const text = (spec: string) => {
      const checked = checkSpec(spec, schema);
      if (!checked.ok) throw new Error(checked.diagnostics[0]?.message);
      return explainSpec(checked.value).text;
    };
    expect(text(allBusiness)).toMatch(
      /every get_user_detailsResult with user_id equal to \$u and reservations equal to \$r and get_reservation_detailsResult with reservation_id equal to \$r and cabin equal to business also cancel_reservationResult with reservation_id equal to \$r and status equal to "cancelled"/,
    );
    expect(
      text(
        'SessionUser(user_id = $u) & cancel_reservation(reservation_id = $r) & not (get_reservation_detailsResult(reservation_id = $r, cabin = business) & get_reservation_detailsResult(reservation_id = $r, insurance = no)) -> Cancelled\nCancelled -> Done',
      ),
    ).toMatch(
      /no get_reservation_detailsResult with reservation_id equal to \$r and cabin equal to business together with get_reservation_detailsResult with reservation_id equal to \$r and insurance equal to no/,
    );
  });
});
