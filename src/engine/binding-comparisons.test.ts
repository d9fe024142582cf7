import { describe, expect, it } from 'vitest';
import { airline, airlineSession } from '../../test/support/airline.js';
import { checkSpec } from '../language/index.js';
import type { Schema } from '../language/schema-model.js';
import { explainSpec } from './explain.js';

/** Conditions on bindings (LANGUAGE.md §9) on τ-bench's airline tools. */
const schema: Schema = airline;
const session = airlineSession;

/** What get_reservation_details reported for YAX4DR: flights and what was paid. */
function reservation(paid: readonly unknown[], passengers = 1, createdAt = '2024-05-14T10:00:00') {
  return {
    updates: {
      get_reservation_detailsResult: {
        reservation_id: 'YAX4DR',
        user_id: 'chen_lee_6825',
        cabin: 'economy',
        flights: [{ flight_number: 'HAT235', date: '2024-05-20', price: 180 }],
        passengers: Array.from({ length: passengers }, (_, index) => ({
          first_name: `P${index}`,
          last_name: 'Lee',
          dob: '1990-01-01',
        })),
        payment_history: paid.map((amount, index) => ({
          payment_id: `gift_card_${index}`,
          amount,
        })),
        created_at: createdAt,
      },
    },
  };
}

const bags = (total: number, nonfree: number) => ({
  action: {
    name: 'update_reservation_baggages',
    args: {
      reservation_id: 'YAX4DR',
      total_baggages: total,
      nonfree_baggages: nonfree,
      payment_id: 'gift_card_0',
    },
  },
});

describe('conditions on bindings (LANGUAGE.md §9)', () => {
  // chen_lee_6825: "willing to pay a fee for the business class changes, up to $600" —
  // the new price minus what was paid.
  const upgrade = `
    get_reservation_detailsResult(reservation_id = "YAX4DR", sum(payment_history.amount) = $paid)
      & update_reservation_baggages(reservation_id = "YAX4DR", total_baggages = $price)
      & $price - $paid <= 600 -> Upgraded
    Upgraded -> Done`;

  it('fires when some assignment satisfies the comparison, exactly in decimals', () => {
    const within = session(upgrade);
    within.observe(reservation([150.1, 49.9]));
    // 800 - 200 = 600: at the bound.
    expect(within.propose(bags(800, 0)).decision).toBe('allow');
    const over = session(upgrade);
    over.observe(reservation([150.1, 49.89]));
    // 800 - 199.99 = 600.01: over by a cent.
    expect(over.propose(bags(800, 0)).decision).toBe('revise');
  });

  it('computes the free baggage allowance with binary max', () => {
    const allowance = `
      get_reservation_detailsResult(reservation_id = $r, count(passengers) = $n)
        & update_reservation_baggages(reservation_id = $r, total_baggages = $bags, nonfree_baggages = $nonfree)
        & $nonfree = max(0, $bags - 2 * $n) -> BagsAdded
      BagsAdded -> Done`;
    const two = (total: number, nonfree: number) => {
      const s = session(allowance);
      s.observe(reservation([100], 2));
      return s.propose(bags(total, nonfree)).decision;
    };
    expect(two(5, 1)).toBe('allow');
    expect(two(5, 0)).toBe('revise');
    expect(two(3, 0)).toBe('allow');
    // max(0, 3 - 4) is 0, never -1.
    expect(two(3, -1)).not.toBe('allow');
    expect(two(0, 0)).toBe('allow');
  });

  it('takes part in the join: another instance may satisfy it', () => {
    const any = `
      get_reservation_detailsResult(sum(payment_history.amount) = $paid)
        & update_reservation_baggages(total_baggages = $bags)
        & $bags * 100 <= $paid -> Paid
      Paid -> Done`;
    const s = session(any);
    s.observe(reservation([100]));
    s.observe({
      updates: {
        get_reservation_detailsResult: {
          ...reservation([500]).updates.get_reservation_detailsResult,
          reservation_id: 'OTHER1',
        },
      },
    });
    expect(s.propose(bags(5, 0)).decision).toBe('allow');
    expect(s.propose(bags(6, 0)).decision).toBe('revise');
  });

  it('is false in a rule and true in a guard when a side does not fit', () => {
    const rule = `
      get_reservation_detailsResult(reservation_id = "YAX4DR", sum(payment_history.amount) = $paid)
        & update_reservation_baggages(total_baggages = $bags) & $paid >= $bags -> Paid
      Paid -> Done`;
    const ruled = session(rule);
    // An amount written as text: the sum does not fit, so $paid has no value to compare.
    ruled.observe(reservation(['100']));
    expect(ruled.propose(bags(1, 0)).decision).toBe('revise');

    const guard = `
      reject book_reservation(sum(payment_methods.amount) = $paying, count(passengers) = $n) & $paying > 500 * $n because "over $500 a passenger"
      book_reservation() -> Booked
      Booked -> Done`;
    const booking = (amounts: readonly unknown[]) => ({
      action: {
        name: 'book_reservation',
        args: {
          user_id: 'sophia_silva_7557',
          origin: 'ORD',
          destination: 'PHL',
          flight_type: 'one_way',
          cabin: 'economy',
          flights: [{ flight_number: 'HAT271', date: '2024-05-26' }],
          passengers: [{ first_name: 'Sophia', last_name: 'Silva', dob: '1957-10-05' }],
          payment_methods: amounts.map((amount, index) => ({
            payment_id: `gift_card_${index}`,
            amount,
          })),
          total_baggages: 0,
          nonfree_baggages: 0,
          insurance: 'no',
        },
      },
    });
    expect(session(guard).propose(booking([300, 200])).decision).toBe('allow');
    const over = session(guard).propose(booking([300, 200.01]));
    expect(over.decision).toBe('reject');
    // A text amount cannot hide a payment from the guard: the sum does not fit, it fires.
    expect(session(guard).propose(booking([300, '900'])).decision).toBe('reject');
  });

  it('compares dates and date-times with durations and the session clock', () => {
    // "booked within the last 24 hours" (anya_garcia_5901): created_at >= now - 24h.
    const recent = `
      get_reservation_detailsResult(reservation_id = $r, created_at as datetime = $created)
        & cancel_reservation(reservation_id = $r) & $created >= now - 24h -> Cancelled
      Cancelled -> Done`;
    const cancel = { action: { name: 'cancel_reservation', args: { reservation_id: 'YAX4DR' } } };
    const fresh = session(recent);
    fresh.observe(reservation([100], 1, '2024-05-14T15:00:00'));
    expect(fresh.propose(cancel).decision).toBe('allow');
    const old = session(recent);
    old.observe(reservation([100], 1, '2024-05-14T14:59:59'));
    expect(old.propose(cancel).decision).toBe('revise');
  });
});

describe('clock arithmetic (LANGUAGE.md §9)', () => {
  const cancel = { action: { name: 'cancel_reservation', args: { reservation_id: 'YAX4DR' } } };

  it('moves now and today by durations, as constants of the session', () => {
    // anya_garcia_5901: a reservation booked within the last 24 hours may be cancelled.
    const recent = `
      get_reservation_detailsResult(reservation_id = $r, created_at as datetime >= now - 24h)
        & cancel_reservation(reservation_id = $r) -> Cancelled
      Cancelled -> Done`;
    const fresh = session(recent);
    fresh.observe(reservation([100], 1, '2024-05-14T15:00:00'));
    expect(fresh.propose(cancel).decision).toBe('allow');
    const old = session(recent);
    old.observe(reservation([100], 1, '2024-05-14T14:59:59'));
    const verdict = old.propose(cancel);
    expect(verdict.decision).toBe('revise');
    // Feedback shows the moment the clock arithmetic resolved to, and how it was written.
    expect(JSON.stringify(verdict)).toContain('2024-05-14T15:00 (now - 1d)');

    const flights = `
      book_reservation(flights[0].date as date <= today + 5d, flights[0].date as date > today) -> Booked
      Booked -> Done`;
    const booking = (date: string) => ({
      action: {
        name: 'book_reservation',
        args: {
          user_id: 'mia_li_3668',
          origin: 'JFK',
          destination: 'SEA',
          flight_type: 'one_way',
          cabin: 'economy',
          flights: [{ flight_number: 'HAT136', date }],
          passengers: [{ first_name: 'Mia', last_name: 'Li', dob: '1990-04-05' }],
          payment_methods: [{ payment_id: 'certificate_1', amount: 100 }],
          total_baggages: 0,
          nonfree_baggages: 0,
          insurance: 'no',
        },
      },
    });
    expect(session(flights).propose(booking('2024-05-20')).decision).toBe('allow');
    expect(session(flights).propose(booking('2024-05-21')).decision).toBe('revise');
    expect(session(flights).propose(booking('2024-05-15')).decision).toBe('revise');
  });

  it('refuses a date moved by part of a day, and a computation that is not a clock word moved', () => {
    const hours = checkSpec(
      'book_reservation(flights[0].date as date <= today + 12h) -> Booked\nBooked -> Done',
      schema,
    );
    expect(hours.ok).toBe(false);
    if (!hours.ok) expect(hours.diagnostics[0]?.hint).toContain('whole days');
  });
});

describe('explain', () => {
  it('says conditions on bindings in plain words, in rules and guards', () => {
    const checked = checkSpec(
      `get_reservation_detailsResult(reservation_id = $r, count(passengers) = $n)
        & update_reservation_baggages(reservation_id = $r, total_baggages = $bags, nonfree_baggages = $nonfree)
        & $nonfree = max(0, $bags - 2 * $n) -> BagsAdded
      BagsAdded -> Done
      reject book_reservation(sum(payment_methods.amount) = $paying, count(passengers) = $n) & $paying > 500 * $n because "over $500 a passenger"`,
      schema,
    );
    if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics));
    const text = explainSpec(checked.value).text;
    expect(text).toContain('where $nonfree is the greater of 0 and $bags - 2 * $n');
    expect(text).toContain('where $paying is more than 500 * $n — over $500 a passenger');
  });
});
