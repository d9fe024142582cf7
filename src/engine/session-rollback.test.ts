import { describe, expect, it } from 'vitest';
import { action, fixedNow, schemaOf, specOf, state, tool } from '../../test/engine/fixtures.js';
import { createSession } from './session-all-parts.js';

const schema = schemaOf(
  ...tool('Search', { query: 'text' }, { hits: 'number' }),
  action('Book', { room: 'text' }, { critical: true }),
  state('Cart', { items: 'number', note: 'text' }),
);
const spec = specOf(
  'Search() -> Searched\nSearched & Book(room = "101") -> Booked\nBooked -> Done',
  schema,
);

describe('Session.rollback: undoing the commit of a failed tool call', () => {
  it('takes back the objectives an allowed call achieved, so the agent may retry', () => {
    const session = createSession(spec, { now: fixedNow, rollback: true });
    expect(session.propose({ action: { name: 'Search', args: { query: 'x' } } }).decision).toBe(
      'allow',
    );
    const commit = session.lastCommit();
    expect(commit).toBeTypeOf('number');
    expect(session.status().achieved).toEqual({ Searched: 1 });
    expect(session.rollback(commit!)).toBe(true);
    expect(session.status().achieved).toEqual({});
    expect(session.rollback(commit!)).toBe(false); // only once
    // Retrying is a first performance again, not `already-achieved`.
    expect(session.propose({ action: { name: 'Search', args: { query: 'x' } } }).decision).toBe(
      'allow',
    );
  });

  it('restores anticipated values, but keeps what changed since', () => {
    const cartSpec = specOf('Cart(items >= 1) -> Filled\nFilled -> Done', schema);
    const session = createSession(cartSpec, { now: fixedNow, rollback: true });
    session.observe({ updates: { Cart: { items: 0, note: 'start' } } });
    session.propose({ updates: { Cart: { items: 2 } }, objective: 'Filled' });
    const first = session.lastCommit()!;
    expect(session.status()).toMatchObject({ achieved: { Filled: 1 }, done: true });
    session.observe({ updates: { Cart: { note: 'later' } } });
    expect(session.rollback(first)).toBe(true);
    expect(session.status()).toMatchObject({ achieved: {}, done: false });
    // items went back to 0; the note observed since stands.
    expect(session.propose({ updates: { Cart: { items: 3 } }, objective: 'Filled' }).decision).toBe(
      'allow',
    );
  });

  it('records nothing without the option, and nothing for refusals or observations', () => {
    const plain = createSession(spec, { now: fixedNow });
    plain.propose({ action: { name: 'Search', args: { query: 'x' } } });
    const commit = plain.lastCommit();
    expect(commit).toBeTypeOf('number');
    expect(plain.rollback(commit!)).toBe(false);
    const session = createSession(spec, { now: fixedNow, rollback: true });
    expect(session.propose({ action: { name: 'Book', args: { room: '101' } } }).decision).toBe(
      'revise',
    );
    expect(session.lastCommit()).toBeUndefined();
    session.observe({ updates: { SearchResult: { hits: 3 } } });
    expect(session.lastCommit()).toBeUndefined();
  });

  it('gives an approved confirmation a commit that can be rolled back', () => {
    const confirmSpec = specOf('@confirm\nBook(room = "101") -> Booked\nBooked -> Done', schema);
    const session = createSession(confirmSpec, { now: fixedNow, rollback: true });
    expect(session.propose({ action: { name: 'Book', args: { room: '101' } } }).decision).toBe(
      'confirm',
    );
    expect(session.lastCommit()).toBeUndefined();
    session.resolve(true);
    const commit = session.lastCommit()!;
    expect(session.status().done).toBe(true);
    expect(session.rollback(commit)).toBe(true);
    expect(session.status()).toMatchObject({ done: false, achieved: {} });
  });

  it('rejects a non-boolean rollback option', () => {
    expect(() => createSession(spec, { rollback: 'yes' as never })).toThrow(/options.rollback/);
  });
});
