import { describe, expect, it } from 'vitest';
import { airline, airlineSession } from '../../test/support/airline.js';
import { checkSpec } from '../language/index.js';
import type { Schema } from '../language/schema-model.js';
import { explainSpec } from './explain.js';

/** `sum`/`min`/`max` and positions (LANGUAGE.md §9) on τ-bench's airline tools. */
const schema: Schema = airline;
const session = airlineSession;

function booking(
  amounts: readonly unknown[],
  flights = [{ flight_number: 'HAT001', date: '2024-05-20' }],
) {
  return {
    action: {
      name: 'book_reservation',
      args: {
        user_id: 'sara_doe_496',
        origin: 'SFO',
        destination: 'JFK',
        flight_type: 'one_way',
        cabin: 'economy',
        flights,
        passengers: [{ first_name: 'Sara', last_name: 'Doe', dob: '1990-04-05' }],
        payment_methods: amounts.map((amount, index) => ({
          payment_id: `gift_card_${index}`,
          amount,
        })),
        total_baggages: 0,
        nonfree_baggages: 0,
        insurance: 'no',
      },
    },
  };
}

describe('sum, min and max (LANGUAGE.md §9)', () => {
  const budget = `
    book_reservation(sum(payment_methods.amount) <= 1000) -> Booked
    Booked -> Done`;

  it('adds the projected amounts exactly and compares the total', () => {
    expect(session(budget).propose(booking([400, 600])).decision).toBe('allow');
    expect(session(budget).propose(booking([400, 600.01])).decision).toBe('revise');
    // 0.1 + 0.2 is 0.3 exactly, as every number of the language.
    const exact = `
      book_reservation(sum(payment_methods.amount) = 0.3) -> Booked
      Booked -> Done`;
    expect(session(exact).propose(booking([0.1, 0.2])).decision).toBe('allow');
  });

  it('sums an empty list to 0', () => {
    const none = `
      book_reservation(sum(payment_methods.amount) = 0) -> Booked
      Booked -> Done`;
    expect(session(none).propose(booking([])).decision).toBe('allow');
  });

  it('does not fit when an element is not a number: a rule does not fire, a guard does', () => {
    const guarded = `
      reject book_reservation(sum(payment_methods.amount) > 1000) because "over budget"
      book_reservation() -> Booked
      Booked -> Done`;
    // An amount written as text cannot hide from the budget.
    expect(session(guarded).propose(booking([400, '900'])).decision).not.toBe('allow');
    expect(session(guarded).propose(booking([400, 900])).decision).toBe('reject');
    expect(session(guarded).propose(booking([400, 500])).decision).toBe('allow');
    expect(session(budget).propose(booking([400, '100'])).decision).toBe('revise');
  });

  it('takes the least and the greatest; of an empty list they do not fit', () => {
    const spec = `
      book_reservation(min(payment_methods.amount) >= 50, max(payment_methods.amount) <= 500) -> Booked
      Booked -> Done`;
    expect(session(spec).propose(booking([50, 500, 120])).decision).toBe('allow');
    expect(session(spec).propose(booking([49, 500])).decision).toBe('revise');
    expect(session(spec).propose(booking([50, 501])).decision).toBe('revise');
    expect(session(spec).propose(booking([])).decision).toBe('revise');
    const guard = `
      reject book_reservation(max(payment_methods.amount) > 500)
      book_reservation() -> Booked
      Booked -> Done`;
    expect(session(guard).propose(booking([])).decision).toBe('reject');
  });

  it('binds a total like a field: sum(…) = $t, then compares it', () => {
    const spec = `
      reject book_reservation(sum(payment_methods.amount) = $t, total_baggages = $t) because "a total, not bags"
      book_reservation(max(payment_methods.amount) = $m, nonfree_baggages < $m) -> Booked
      Booked -> Done`;
    const with_ = (amounts: number[], bags: number) => {
      const proposal = booking(amounts);
      return {
        action: { ...proposal.action, args: { ...proposal.action.args, total_baggages: bags } },
      };
    };
    expect(session(spec).propose(with_([1, 2], 3)).decision).toBe('reject');
    expect(session(spec).propose(with_([1, 2], 2)).decision).toBe('allow');
    // nonfree_baggages (0) < max (0) does not hold.
    expect(session(spec).propose(with_([0], 2)).decision).toBe('revise');
  });
});

describe('positions (LANGUAGE.md §9)', () => {
  const firstAndLast = `
    book_reservation(flights[0].date as date = 2024-05-20, flights[-1].flight_number = "HAT002") -> Booked
    Booked -> Done`;
  const legs = [
    { flight_number: 'HAT001', date: '2024-05-20' },
    { flight_number: 'HAT002', date: '2024-05-21' },
  ];

  it('reads the first and the last element', () => {
    expect(session(firstAndLast).propose(booking([100], legs)).decision).toBe('allow');
    expect(session(firstAndLast).propose(booking([100], [...legs].reverse())).decision).toBe(
      'revise',
    );
  });

  it('is a missing value out of range: false in a rule, true in a guard', () => {
    const second = `
      book_reservation(flights[1].flight_number = "HAT001") -> Booked
      Booked -> Done`;
    expect(session(second).propose(booking([100], legs.slice(0, 1))).decision).toBe('revise');
    const guard = `
      reject book_reservation(flights[1].flight_number != "HAT002")
      book_reservation() -> Booked
      Booked -> Done`;
    expect(session(guard).propose(booking([100], legs.slice(0, 1))).decision).toBe('reject');
    expect(session(guard).propose(booking([100], legs)).decision).toBe('allow');
  });
});

describe('explain renders the v3 terms in plain words', () => {
  it('names sums, extremes and positions', () => {
    const checked = checkSpec(
      `reject book_reservation(sum(payment_methods.amount) > 1000)
      book_reservation(max(payment_methods.amount) <= 500, flights[0].flight_number = "HAT001", flights[-2].flight_number != "HAT009") -> Booked
      Booked -> Done`,
      schema,
    );
    if (!checked.ok) throw new Error(checked.diagnostics[0]?.message);
    const text = explainSpec(checked.value).text;
    expect(text).toContain('the sum of payment_methods.amount');
    expect(text).toContain('the greatest of payment_methods.amount');
    expect(text).toContain('flights[first].flight_number');
    expect(text).toContain('flights[2nd from last].flight_number');
  });
});
