import { describe, expect, it } from 'vitest';
import { createGuard, toolResultObservation } from '../../src/guard/index.js';
import { checkSpec } from '../../src/language/index.js';
import { schemaFromMcpTools } from '../../src/schema/index.js';
import { airline } from '../support/airline.js';
import { loadTaubenchExample } from '../support/taubench-example.js';

/**
 * docs/schemas.md, "A text result read as JSON": a tool that answers a JSON array in text
 * (τ-bench's flight searches) declares `content` with its shape in `outputSchema`, and
 * its text is read as that JSON; paths, filters and "the cheapest" then read it.
 */

/** The recorded output of task 6 trial 1's one-stop search (ATL to PHL on May 24). */
function recordedOnestopSearch(): string {
  const { data } = loadTaubenchExample();
  const run = data.runs.find((candidate) => candidate.taskId === 6 && candidate.trial === 1);
  const call = run?.messages
    .flatMap((message) => (Array.isArray(message['tool_calls']) ? message['tool_calls'] : []))
    .find((item) => item?.function?.name === 'search_onestop_flight');
  const answer = run?.messages.find(
    (message) => message['role'] === 'tool' && message['tool_call_id'] === call?.id,
  );
  if (typeof answer?.['content'] !== 'string') throw new Error('no recorded search');
  return answer['content'];
}

const searchArgs = { origin: 'ATL', destination: 'PHL', date: '2024-05-24' };
const reservation = {
  reservation_id: 'M05KNL',
  user_id: 'aarav_garcia_1177',
  origin: 'ATL',
  destination: 'PHL',
  flights: [
    { origin: 'ATL', destination: 'ORD', flight_number: 'HAT227', date: '2024-05-23', price: 1936 },
    { origin: 'ORD', destination: 'PHL', flight_number: 'HAT139', date: '2024-05-23', price: 851 },
  ],
};

// The cheapest one-stop connection of the day after the reservation: task 6's intent.
const cheapest = [
  'get_reservation_detailsResult(reservation_id = $r, flights[0].date as date = $d)',
  '  & search_onestop_flightResult(origin = "ATL", destination = "PHL", date as date = $d + 1d, content[it[0].flight_number = $f1, it[1].flight_number = $f2, it[0].prices.economy = $p1, it[1].prices.economy = $p2])',
  '  & not (search_onestop_flightResult(origin = "ATL", destination = "PHL", date as date = $d + 1d, content[it[0].available_seats.economy >= 1, it[1].available_seats.economy >= 1, it[0].prices.economy = $o1, it[1].prices.economy = $o2]) & $o1 + $o2 < $p1 + $p2)',
  '  & update_reservation_flights(reservation_id = $r, cabin = "economy", flights[0].flight_number = $f1, flights[1].flight_number = $f2) -> Changed',
  'Changed -> Done',
].join('\n');

function guardAfterSearch(output: unknown) {
  const spec = checkSpec(cheapest, airline);
  if (!spec.ok) throw new Error(spec.diagnostics.map((item) => item.message).join('\n'));
  const guard = createGuard(spec.value, airline, { now: '2024-05-15T15:00' });
  expect(
    guard.check({ id: 'r', name: 'get_reservation_details', args: { reservation_id: 'M05KNL' } })
      .action,
  ).toBe('run');
  guard.result('r', { output: JSON.stringify(reservation) });
  expect(guard.check({ id: 's', name: 'search_onestop_flight', args: searchArgs }).action).toBe(
    'run',
  );
  guard.result('s', { output });
  return guard;
}

function change(first: string, second: string) {
  return {
    id: `u-${first}-${second}`,
    name: 'update_reservation_flights',
    args: {
      reservation_id: 'M05KNL',
      cabin: 'economy',
      flights: [
        { flight_number: first, date: '2024-05-24' },
        { flight_number: second, date: '2024-05-24' },
      ],
      payment_id: 'gift_card_8887175',
    },
  };
}

describe('a text result whose schema declares content with a shape', () => {
  it('reads the recorded JSON array, so "the cheapest" connection is the only one allowed', () => {
    const output = recordedOnestopSearch();
    const observed = toolResultObservation(airline, 'search_onestop_flight', output, searchArgs);
    const content = observed?.updates['search_onestop_flightResult']?.['content'];
    expect(Array.isArray(content)).toBe(true);
    expect(content).toEqual(JSON.parse(output));

    // HAT110 + HAT132 costs 105 + 190 in economy; HAT110 + HAT172 costs 105 + 102.
    const dearer = guardAfterSearch(output).check(change('HAT110', 'HAT132'));
    expect(dearer.action).toBe('refuse');
    expect(dearer.message).toContain('$o1 = 105 and $o2 = 102');
    expect(guardAfterSearch(output).check(change('HAT110', 'HAT172')).action).toBe('run');
  });

  it('reads the single text part of an MCP result the same way, but not an error result', () => {
    const output = recordedOnestopSearch();
    const part = { content: [{ type: 'text', text: output }] };
    expect(
      toolResultObservation(airline, 'search_onestop_flight', part, searchArgs)?.updates[
        'search_onestop_flightResult'
      ]?.['content'],
    ).toEqual(JSON.parse(output));
    expect(
      toolResultObservation(
        airline,
        'search_onestop_flight',
        { ...part, isError: true },
        searchArgs,
      )?.updates['search_onestop_flightResult'],
    ).toEqual(searchArgs);
  });

  it('leaves content unreported when the text is not JSON: nothing fires on it, and a not (…) over it fails closed', () => {
    const observed = toolResultObservation(
      airline,
      'search_onestop_flight',
      '[[{"flight_number": "HAT110", "prices": {"economy": 1}}]',
      searchArgs,
    );
    expect(observed?.updates['search_onestop_flightResult']).toEqual(searchArgs);
    // The search's content cannot be read: the connection is not one it found.
    const guard = guardAfterSearch('Flights: HAT110 then HAT172, $207');
    const decision = guard.check(change('HAT110', 'HAT172'));
    expect(decision.action).toBe('refuse');
    expect(decision.verdict.reasons[0]?.code).toBe('unmet-conditions');
  });

  it('keeps a declared text content as the text, and an object text as its fields', () => {
    const schema = schemaFromMcpTools({
      tools: [
        {
          name: 'lookup',
          inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
          outputSchema: {
            type: 'object',
            properties: { content: { type: 'string' }, hits: { type: 'number' } },
          },
        },
        {
          name: 'listing',
          inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
          outputSchema: {
            type: 'object',
            properties: { content: { type: 'array' }, hits: { type: 'number' } },
          },
        },
      ],
    }).value;
    if (!schema) throw new Error('schema does not load');
    // Text content: only a JSON object's fields are read, as before.
    expect(toolResultObservation(schema, 'lookup', '["a"]')?.updates).toEqual({
      lookupResult: {},
    });
    // Shaped content: an object text is still its fields, never wrapped into content.
    expect(toolResultObservation(schema, 'listing', '{"hits": 2}')?.updates).toEqual({
      listingResult: { hits: 2 },
    });
    expect(toolResultObservation(schema, 'listing', ' ["a", 1] ')?.updates).toEqual({
      listingResult: { content: ['a', 1] },
    });
  });
});
