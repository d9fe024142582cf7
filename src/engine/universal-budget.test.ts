import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { airlineSession } from '../../test/support/airline.js';
import { defaultLimits } from '../language/index.js';
import { evaluators } from './on-demand-part.js';
import { StateStore } from './state.js';

/*
 * Scopes (LANGUAGE.md §9) against the join's bound (`maxJoinWork`): a `forall` or a scoped
 * `not` makes a join larger, never unbounded. The work is counted, not timed: every
 * instance the join visits is one step, so the instances visited during one judgement
 * stay below the joins run times the bound.
 */

const session = airlineSession;

const ids = (count: number) =>
  Array.from({ length: count }, (_, index) => `R${String(index).padStart(5, '0')}`);

const observeWorld = (
  s: ReturnType<typeof session>,
  world: { reservations: string[]; cabins: (string | undefined)[]; cancelled: boolean[] },
) => {
  s.observe({ updates: { SessionUser: { user_id: 'u1' } } });
  s.observe({
    updates: { get_user_detailsResult: { user_id: 'u1', reservations: world.reservations } },
  });
  s.observe({
    updates: {
      get_reservation_detailsResult: world.reservations.map((reservation_id, index) => ({
        reservation_id,
        status: 'active',
        ...(world.cabins[index] === undefined ? {} : { cabin: world.cabins[index] }),
      })),
    },
  });
  const cancelled = world.reservations.filter((_, index) => world.cancelled[index]);
  if (cancelled.length > 0)
    s.observe({
      updates: {
        cancel_reservationResult: cancelled.map((reservation_id) => ({
          reservation_id,
          status: 'cancelled',
        })),
      },
    });
};

/** Counts the joins run and the instances they visit while `run` runs. */
function measure(run: () => void): { joins: number; visits: number } {
  const counted = { joins: 0, visits: 0 };
  const joinHolds = evaluators.joinHolds;
  const scopeWitnesses = evaluators.scopeWitnesses;
  const someInstance = StateStore.prototype.someInstance;
  vi.spyOn(evaluators, 'joinHolds').mockImplementation((...args) => {
    counted.joins++;
    return joinHolds(...args);
  });
  vi.spyOn(evaluators, 'scopeWitnesses').mockImplementation((...args) => {
    counted.joins++;
    return scopeWitnesses(...args);
  });
  vi.spyOn(StateStore.prototype, 'someInstance').mockImplementation(function (
    this: StateStore,
    predicate,
    visit,
  ) {
    return someInstance.call(this, predicate, (instance) => {
      counted.visits++;
      return visit(instance);
    });
  });
  try {
    run();
  } finally {
    vi.restoreAllMocks();
  }
  return counted;
}

afterEach(() => vi.restoreAllMocks());

const allBusiness = `
  get_user_detailsResult(user_id = $u) & forall(get_user_detailsResult(user_id = $u, reservations = $r) & get_reservation_detailsResult(reservation_id = $r, cabin = business) => cancel_reservationResult(reservation_id = $r, status = "cancelled")) -> Done`;

describe('scopes within maxJoinWork (LANGUAGE.md §9)', () => {
  it('a forall beyond the bound is not reached, even when every instance is done (fail closed)', () => {
    const reservations = ids(400);
    const s = session(allBusiness);
    // One observation of 400 instances is one judgement of the Done rule, not 400.
    const observed = measure(() =>
      observeWorld(s, {
        reservations,
        cabins: reservations.map(() => 'business'),
        cancelled: reservations.map(() => true),
      }),
    );
    expect(observed.joins).toBeGreaterThan(0);
    expect(observed.joins).toBeLessThanOrEqual(4);
    expect(observed.visits).toBeLessThanOrEqual(observed.joins * defaultLimits.maxJoinWork);
    // 400 reservations, each looked for among 400 details and 400 cancellations: more
    // than maxJoinWork steps, so the universal is not established.
    expect(s.status().done).toBe(false);
    const finish = measure(() => {
      const verdict = s.propose({ finish: true });
      expect(verdict.decision).toBe('revise');
      expect(verdict.feedback).toContain('too many steps');
    });
    expect(finish.joins).toBeGreaterThan(0);
    expect(finish.visits).toBeLessThanOrEqual(finish.joins * defaultLimits.maxJoinWork);
  });

  it('the same forall within the bound is reached', () => {
    const reservations = ids(60);
    const s = session(allBusiness);
    observeWorld(s, {
      reservations,
      cabins: reservations.map(() => 'business'),
      cancelled: reservations.map(() => true),
    });
    expect(s.status().done).toBe(true);
  });

  const specs = {
    forall: allBusiness,
    notForall: allBusiness.replace(
      /forall\((.*) => (.*)\) -> Done/,
      (_all, condition: string, conclusion: string) =>
        `not (${condition} & not (${conclusion})) -> Done`,
    ),
    nested: `
      get_user_detailsResult(user_id = $u) & not (get_user_detailsResult(user_id = $u, reservations = $r) & not (get_reservation_detailsResult(reservation_id = $r, cabin = economy) & not (cancel_reservationResult(reservation_id = $r)))) -> Done`,
    scopedNot: `
      SessionUser(user_id = $u) & cancel_reservation(reservation_id = $r) & not (get_user_detailsResult(user_id = $u, reservations = $x) & get_reservation_detailsResult(reservation_id = $x, cabin = business) & not (cancel_reservationResult(reservation_id = $x))) -> Cancelled
      Cancelled -> Done`,
  };

  it('random scoped specs over worlds of up to a few hundred facts stay within the bound', {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...(Object.keys(specs) as (keyof typeof specs)[])),
        fc.integer({ min: 0, max: 120 }).chain((count) =>
          fc.record({
            count: fc.constant(count),
            cabins: fc.array(fc.constantFrom('business', 'economy', undefined), {
              minLength: count,
              maxLength: count,
            }),
            cancelled: fc.array(fc.boolean(), { minLength: count, maxLength: count }),
          }),
        ),
        (name, world) => {
          const reservations = ids(world.count);
          const s = session(specs[name]);
          observeWorld(s, { reservations, cabins: world.cabins, cancelled: world.cancelled });
          let done = false;
          const counted = measure(() => {
            done = s.status().done;
            s.propose({ finish: true });
            s.propose({
              action: { name: 'cancel_reservation', args: { reservation_id: 'R00000' } },
            });
          });
          expect(counted.visits).toBeLessThanOrEqual(
            Math.max(1, counted.joins) * defaultLimits.maxJoinWork,
          );
          // Never done while a reservation it ranges over is left (or may be: no cabin read).
          if (done && name !== 'scopedNot') {
            const wanted = name === 'nested' ? ['economy'] : ['business', undefined];
            const left = reservations.some(
              (_, index) => wanted.includes(world.cabins[index]) && !world.cancelled[index],
            );
            expect(left).toBe(false);
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});
