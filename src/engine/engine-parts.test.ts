import { describe, expect, it } from 'vitest';
import { action, fixedNow, schemaOf, specOf, state } from '../../test/engine/fixtures.js';
import { allEngineParts } from './all-parts.js';
import { loadEngineParts } from './load-parts.js';
import { Session } from './session.js';
import { createSession } from './session-all-parts.js';

const schema = schemaOf(
  state('Contact', { name: 'text' }),
  action('SendEmail', { to: 'text', note: 'text' }),
);
const similar = specOf(
  'SendEmail(note ~ "quarterly report") -> Sent\nSent -> Done\nreject SendEmail(to = "Mallory") because "not to Mallory"',
  schema,
);
const send = (to: string) => ({
  action: { name: 'SendEmail', args: { to, note: 'the quarterly report' } },
});

describe('engine parts are passed in options, never registered', () => {
  it('a session given no parts refuses a spec that needs one, whatever other sessions were given', () => {
    expect(createSession(similar, { now: fixedNow }).propose(send('Ann')).decision).toBe('allow');
    expect(() => new Session(similar, { now: fixedNow })).toThrow(
      /nor the lexical similarity \(parts\.lexicalSimilarity\)/,
    );
    // A guard that compares text needs the confusables table as it is compiled.
    expect(() => new Session(similar, { now: fixedNow, similarity: () => 1 })).toThrow(
      /confusables table, which is not given \(parts\.confusables\)/,
    );
    // The host's own measure needs no part; the guard reads look-alikes by the table given.
    const own = new Session(similar, {
      now: fixedNow,
      similarity: () => 1,
      parts: { confusables: allEngineParts.confusables },
    });
    expect(own.propose(send('Маllory')).decision).toBe('reject');
    expect(own.propose(send('Ann')).decision).toBe('allow');
  });

  it('the root session and the engine session given every part decide alike', () => {
    const given = new Session(similar, { now: fixedNow, parts: allEngineParts });
    const root = createSession(similar, { now: fixedNow });
    for (const to of ['Ann', 'Маllory', 'Mall0ry'])
      expect(given.propose(send(to))).toEqual(root.propose(send(to)));
  });

  it('a finish with an answer is refused without the answer check, and checked with it', () => {
    const spec = specOf('SendEmail(to = "Ann") -> Sent\nSent -> Done', schema);
    const finish = { finish: true, answer: 'Action: SendEmail\nAction Input: {"to": "Ann"}' };
    const without = new Session(spec, { now: fixedNow, parts: {} });
    expect(without.propose(finish).reasons.map((reason) => reason.code)).toEqual([
      'internal-error',
    ]);
    const checked = createSession(spec, { now: fixedNow }).propose(finish);
    expect(checked.reasons.map((reason) => reason.code)).toContain('fabricated-action');
  });

  it('loads on demand the parts a page names, and only those', async () => {
    const loaded = await loadEngineParts(['confusables', 'lexicalSimilarity']);
    expect(Object.keys(loaded).sort()).toEqual(['confusables', 'lexicalSimilarity']);
    expect(loaded.confusables?.skeletons('Маllory').cased).toBe(
      allEngineParts.confusables?.skeletons('mallory').cased,
    );
    const session = new Session(similar, { now: fixedNow, parts: loaded });
    expect(session.propose(send('Маllory')).decision).toBe('reject');
  });

  it("reads the intent's given facts only with their part, and refuses a session without it", async () => {
    const withFacts = schemaOf(
      { ...state('Purpose', { reason: 'text' }), source: 'user' },
      action('SendEmail', { to: 'text', note: 'text' }),
    );
    const spec = specOf(
      'given Purpose(reason = "health")\nPurpose(reason = "health") & SendEmail(to = "Ann") -> Sent\nSent -> Done',
      withFacts,
    );
    // Fail closed: never a session that starts without what the user said.
    expect(() => new Session(spec, { now: fixedNow, parts: {} })).toThrow(
      /given facts, and their reading is not given \(parts\.givens\)/,
    );
    const loaded = await loadEngineParts(['givens']);
    expect(Object.keys(loaded)).toEqual(['givens']);
    const session = new Session(spec, { now: fixedNow, parts: loaded });
    expect(session.propose(send('Ann')).decision).toBe('allow');
    expect(
      new Session(specOf('SendEmail(to = "Ann") -> Sent\nSent -> Done', withFacts), {
        now: fixedNow,
        parts: {},
      }).propose(send('Ann')).decision,
    ).toBe('allow');
  });

  it('refuses parts that are not an object', () => {
    expect(() => new Session(similar, { now: fixedNow, parts: 'all' as never })).toThrow(
      /options\.parts/,
    );
  });
});
