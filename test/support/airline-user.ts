import { readData } from './project-data.js';

/**
 * A real user of τ-bench's airline database (data/taubench/airline/db/users.json) as
 * `get_user_details` returns them, and a one-way booking for them: the maps of LANGUAGE.md
 * §9 (`payment_methods` is keyed by id) are tested on this record.
 */

const users = JSON.parse(readData('taubench/airline/db/users.json')) as Record<string, object>;

/** `get_user_detailsResult` for `userId`, as the database holds the user. */
export function airlineUserDetails(userId: string): Record<string, unknown> {
  const user = users[userId];
  if (user === undefined) throw new Error(`the airline database has no user ${userId}`);
  return { user_id: userId, ...user };
}

/** A one-way SFO → JFK booking for `userId`, paid with each `[payment_id, amount]` in order. */
export function airlineBooking(userId: string, ...payments: readonly [string, number][]) {
  return {
    action: {
      name: 'book_reservation',
      args: {
        user_id: userId,
        origin: 'SFO',
        destination: 'JFK',
        flight_type: 'one_way',
        cabin: 'economy',
        flights: [{ flight_number: 'HAT001', date: '2024-05-20' }],
        passengers: [{ first_name: 'Sophia', last_name: 'Davis', dob: '1990-04-05' }],
        payment_methods: payments.map(([payment_id, amount]) => ({ payment_id, amount })),
        total_baggages: 0,
        nonfree_baggages: 0,
        insurance: 'no',
      },
    },
  };
}
