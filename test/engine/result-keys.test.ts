import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/engine/index.js';
import { createGuard, toolResultObservation } from '../../src/guard/index.js';
import type { Schema } from '../../src/language/index.js';
import { schemaFromMcpTools } from '../../src/schema/index.js';
import { action, fixedNow, schemaOf, specOf, state } from './fixtures.js';

/**
 * LANGUAGE.md §7 / FORMATS.md §1: a tool's result predicate is keyed by the call's
 * arguments, which are its variables too; each distinct call keeps its own result.
 */

const tools: Schema = (() => {
  const result = schemaFromMcpTools({
    tools: [
      {
        name: 'SearchPeople',
        inputSchema: {
          type: 'object',
          properties: { search_term: { type: 'string' }, max_results: { type: 'number' } },
          required: ['search_term'],
        },
        outputSchema: {
          type: 'object',
          properties: {
            results: {
              type: 'array',
              items: {
                type: 'object',
                properties: { name: { type: 'string' }, unique_id: { type: 'string' } },
              },
            },
            flagged: { type: 'boolean' },
          },
        },
        annotations: { readOnlyHint: true },
      },
      {
        name: 'BackgroundCheck',
        inputSchema: {
          type: 'object',
          properties: { unique_id: { type: 'string' } },
          required: ['unique_id'],
        },
        annotations: { destructiveHint: true },
      },
    ],
  });
  if (!result.value) throw new Error('schema does not load');
  return result.value;
})();

const checkOnlyFound = specOf(
  [
    'SearchPeopleResult(search_term = "Mike Johnson", results[name = "Mike Johnson"].unique_id = $id) & BackgroundCheck(unique_id = $id) -> Checked',
    'Checked -> Done',
  ].join('\n'),
  tools,
);

function searched(term: string | undefined, people: readonly (readonly [string, string])[]) {
  return {
    updates: {
      SearchPeopleResult: {
        ...(term === undefined ? {} : { search_term: term }),
        results: people.map(([name, id]) => ({ name, unique_id: id })),
      },
    },
  };
}

const check = (id: string) => ({ action: { name: 'BackgroundCheck', args: { unique_id: id } } });

describe('tool results keyed by the call’s arguments', () => {
  it('keeps an earlier search after a different one, and reads its arguments as variables', () => {
    const session = createSession(checkOnlyFound, { now: fixedNow });
    expect(session.observe(searched('Mike Johnson', [['Mike Johnson', 'a1b2']])).ok).toBe(true);
    expect(session.observe(searched('Jane Doe', [['Jane Doe', 'c3d4']])).ok).toBe(true);
    // The later search for someone else does not hide the one the rule reads.
    expect(session.propose(check('a1b2')).decision).toBe('allow');
    // An id found only by the other search is not the one the rule names.
    const refused = createSession(checkOnlyFound, { now: fixedNow });
    refused.observe(searched('Mike Johnson', [['Mike Johnson', 'a1b2']]));
    refused.observe(searched('Jane Doe', [['Mike Johnson', 'e5f6']]));
    const verdict = refused.propose(check('e5f6'));
    expect(verdict.decision).toBe('revise');
    expect(verdict.feedback).toContain('a1b2');
  });

  it('replaces the result of a repeated call with the same arguments, clearing what it left out', () => {
    const session = createSession(checkOnlyFound, { now: fixedNow });
    session.observe(searched('Mike Johnson', [['Mike Johnson', 'a1b2']]));
    session.observe(searched('Mike Johnson', [['Mike Johnson', 'zz99']]));
    expect(session.propose(check('a1b2')).decision).toBe('revise');
    expect(createSessionAfter([['Mike Johnson', 'zz99']]).propose(check('zz99')).decision).toBe(
      'allow',
    );
  });

  it('keys a result observed without its arguments as "not given": one such result, replaced as before', () => {
    const spec = specOf(
      [
        'SearchPeopleResult(results[name = "Mike Johnson"].unique_id = $id) & BackgroundCheck(unique_id = $id) -> Checked',
        'Checked -> Done',
      ].join('\n'),
      tools,
    );
    const session = createSession(spec, { now: fixedNow });
    session.observe(searched(undefined, [['Mike Johnson', 'a1b2']]));
    session.observe(searched(undefined, [['Mike Johnson', 'c3d4']]));
    // The second unkeyed result replaced the first, exactly as a v1 "last result" does.
    expect(session.propose(check('a1b2')).decision).toBe('revise');
    expect(session.propose(check('c3d4')).decision).toBe('allow');
    // The rule does not name the search term, so a keyed result serves it too.
    const keyed = createSession(spec, { now: fixedNow });
    keyed.observe(searched('Mike', [['Mike Johnson', 'k1']]));
    keyed.observe(searched(undefined, [['Someone', 'k2']]));
    expect(keyed.propose(check('k1')).decision).toBe('allow');
  });

  it('makes a `not` over results see every call’s result, not only the last', () => {
    const spec = specOf(
      [
        'not SearchPeopleResult(flagged = true) & BackgroundCheck() -> Checked',
        'Checked -> Done',
      ].join('\n'),
      tools,
    );
    const session = createSession(spec, { now: fixedNow });
    session.observe({ updates: { SearchPeopleResult: { search_term: 'A', flagged: true } } });
    // A later, clean search for someone else must not walk around the flag.
    session.observe({ updates: { SearchPeopleResult: { search_term: 'B', flagged: false } } });
    const verdict = session.propose(check('x'));
    expect(verdict.decision).toBe('revise');
    expect(verdict.reasons[0]?.code).toBe('unmet-conditions');
  });

  it('fails closed when a session would keep more results than maxInstances', () => {
    const spec = specOf(
      [
        'not SearchPeopleResult(flagged = true) & BackgroundCheck() -> Checked',
        'Checked -> Done',
      ].join('\n'),
      tools,
    );
    const session = createSession(spec, { now: fixedNow, limits: { maxInstances: 3 } });
    for (const term of ['a', 'b', 'c']) {
      expect(
        session.observe({ updates: { SearchPeopleResult: { search_term: term, flagged: false } } })
          .ok,
      ).toBe(true);
    }
    // A repeated call replaces its own result: no new instance, still within the limit.
    expect(
      session.observe({ updates: { SearchPeopleResult: { search_term: 'a', flagged: false } } }).ok,
    ).toBe(true);
    expect(session.propose(check('x')).decision).toBe('allow');
    // The fourth distinct result cannot be kept. Had it been dropped silently (or an old
    // one evicted), `not SearchPeopleResult(flagged = true)` would still hold.
    const lost = session.observe({
      updates: { SearchPeopleResult: { search_term: 'd', flagged: true } },
    });
    expect(lost.ok).toBe(false);
    expect(lost.problems[0]?.message).toContain('maxInstances');
    const after = session.propose(check('y'));
    expect(after.decision).toBe('reject');
    expect(after.reasons[0]?.code).toBe('internal-error');
    expect(after.feedback).toContain('could not be kept');
  });

  it('refuses a proposal that would add an instance beyond maxInstances to a keyed state', () => {
    const cart = schemaOf(
      state('CartItem', { sku: 'text', quantity: 'number' }, { keys: ['sku'] }),
      action('Checkout', {}),
    );
    const session = createSession(
      specOf('CartItem(quantity > 0) & Checkout() -> Bought\nBought -> Done', cart),
      {
        now: fixedNow,
        limits: { maxInstances: 2 },
      },
    );
    const add = (sku: string) => ({ updates: { CartItem: { sku, quantity: 1 } } });
    expect(session.propose(add('a')).decision).toBe('allow');
    expect(session.propose(add('b')).decision).toBe('allow');
    // Changing an instance it holds is fine; a third one is refused, and nothing is lost.
    expect(session.propose({ updates: { CartItem: { sku: 'a', quantity: 2 } } }).decision).toBe(
      'allow',
    );
    const third = session.propose(add('c'));
    expect(third.decision).toBe('revise');
    expect(third.reasons[0]?.code).toBe('invalid-proposal');
    expect(third.feedback).toContain('maxInstances');
    expect(session.propose({ action: { name: 'Checkout', args: {} } }).decision).toBe('allow');
  });
});

function createSessionAfter(people: readonly (readonly [string, string])[]) {
  const session = createSession(checkOnlyFound, { now: fixedNow });
  session.observe(searched('Mike Johnson', people));
  return session;
}

describe('the guard keys a result by the call it allowed', () => {
  const spec = specOf(
    [
      'SearchPeople() -> Searched',
      'SearchPeopleResult(search_term = "Mike Johnson", results[name = "Mike Johnson"].unique_id = $id) & BackgroundCheck(unique_id = $id) -> Checked',
      'Checked -> Done',
    ].join('\n'),
    tools,
  );

  it('keys by the allowed call’s arguments, which neither the output nor later changes can alter', () => {
    const guard = createGuard(spec, tools, { now: fixedNow });
    const args: Record<string, unknown> = { search_term: 'Someone Else' };
    expect(guard.check({ id: 's1', name: 'SearchPeople', args }).action).toBe('run');
    // The agent changes its arguments object after the check, and the tool output (which
    // a web page may have shaped) claims another search term: neither counts.
    args['search_term'] = 'Mike Johnson';
    expect(
      guard.result('s1', {
        output: {
          search_term: 'Mike Johnson',
          results: [{ name: 'Mike Johnson', unique_id: 'evil' }],
        },
      }).ok,
    ).toBe(true);
    expect(
      guard.check({ id: 'c1', name: 'BackgroundCheck', args: { unique_id: 'evil' } }).action,
    ).not.toBe('run');
  });

  it('never takes an argument the call left out from the tool’s output', () => {
    const narrow = specOf(
      [
        'SearchPeopleResult(max_results = 1, results[name = "Mike"].unique_id = $id) & BackgroundCheck(unique_id = $id) -> Checked',
        'Checked -> Done',
      ].join('\n'),
      tools,
    );
    const guard = createGuard(narrow, tools, { now: fixedNow });
    guard.check({ id: 's1', name: 'SearchPeople', args: { search_term: 'Mike' } });
    guard.result('s1', {
      output: { max_results: 1, results: [{ name: 'Mike', unique_id: 'a1' }] },
    });
    expect(
      guard.check({ id: 'c1', name: 'BackgroundCheck', args: { unique_id: 'a1' } }).action,
    ).not.toBe('run');
    guard.check({ id: 's2', name: 'SearchPeople', args: { search_term: 'Mike', max_results: 1 } });
    guard.result('s2', { output: { results: [{ name: 'Mike', unique_id: 'b2' }] } });
    expect(
      guard.check({ id: 'c2', name: 'BackgroundCheck', args: { unique_id: 'b2' } }).action,
    ).toBe('run');
  });

  it('keeps each search the guard allowed, keyed by its own arguments', () => {
    const guard = createGuard(spec, tools, { now: fixedNow });
    guard.check({ id: 's1', name: 'SearchPeople', args: { search_term: 'Mike Johnson' } });
    guard.result('s1', { output: { results: [{ name: 'Mike Johnson', unique_id: 'a1b2' }] } });
    guard.check({ id: 's2', name: 'SearchPeople', args: { search_term: 'Jane Doe' } });
    guard.result('s2', { output: { results: [{ name: 'Jane Doe', unique_id: 'c3d4' }] } });
    expect(
      guard.check({ id: 'c1', name: 'BackgroundCheck', args: { unique_id: 'a1b2' } }).action,
    ).toBe('run');
  });
});

describe('toolResultObservation', () => {
  it('finds a tool by the name the agent calls it, when that is not an identifier', () => {
    const schema = schemaFromMcpTools({
      tools: [
        {
          name: 'get-weather',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
    }).value;
    if (!schema) throw new Error('schema does not load');
    expect(toolResultObservation(schema, 'get-weather', 'Sunny', { city: 'Oslo' })).toEqual({
      updates: { get_weatherResult: { content: 'Sunny', city: 'Oslo' } },
    });
    expect(toolResultObservation(schema, 'get_weather', { content: 'x' })).toEqual({
      updates: { get_weatherResult: { content: 'x' } },
    });
    expect(toolResultObservation(schema, 'other', {})).toBeUndefined();
  });
});
