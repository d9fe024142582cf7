import { describe, expect, it } from 'vitest';
import { createMajoritySession, createSession, NoSpecSession } from '../../src/index.js';
import { bankSchema, exampleText, fixedNow, specFor } from './support.js';

/**
 * S13 (options) and D9 (createSession): a misconfigured guard fails at construction
 * with an error that names the option, instead of quietly running weaker.
 */
const spec = specFor(exampleText('bank-transfer/spec.intent'), bankSchema());

describe('S13: invalid session options fail closed with a clear error', () => {
  const bad: readonly [string, Record<string, unknown>, RegExp][] = [
    [
      'a negative threshold',
      { similarityThreshold: -1 },
      /'options.similarityThreshold' must be a number in \[0, 1\], not -1/,
    ],
    ['a NaN threshold', { similarityThreshold: Number.NaN }, /'options.similarityThreshold'/],
    ['a threshold above 1', { similarityThreshold: 1.5 }, /'options.similarityThreshold'/],
    [
      'a negative escalation',
      { escalateAfter: -1 },
      /'options.escalateAfter' must be a whole number of zero or more/,
    ],
    ['a NaN escalation', { escalateAfter: Number.NaN }, /'options.escalateAfter'/],
    ['a fractional escalation', { escalateAfter: 1.5 }, /'options.escalateAfter'/],
    ['a NaN history limit', { historyLimit: Number.NaN }, /'options.historyLimit'/],
    [
      'an unknown disposition',
      { unplannedCritical: 'allow' },
      /'options.unplannedCritical' must be 'revise' or 'confirm'/,
    ],
    [
      'an unknown time zone',
      { timeZone: 'Mars/Phobos' },
      /'options.timeZone' must be an IANA time zone/,
    ],
    [
      'a similarity that is not a function',
      { similarity: 0.9 },
      /'options.similarity' must be a function/,
    ],
    ['a misspelt option', { escalteAfter: 2 }, /the unknown option 'escalteAfter'/],
    ['an unknown limit', { limits: { maxEverything: 1 } }, /the unknown limit 'maxEverything'/],
    [
      'a negative limit',
      { limits: { maxValueLength: -1 } },
      /'options.limits.maxValueLength' must be a whole number/,
    ],
  ];
  for (const [what, options, message] of bad) {
    it(`refuses ${what}`, () => {
      expect(() => createSession(spec, { now: fixedNow, ...options })).toThrow(message);
      // Also without a spec, and for a majority session: the host hears about it either way.
      expect(() => createSession(undefined, options)).toThrow(message);
      expect(() => createMajoritySession([spec], { now: fixedNow, ...options })).toThrow(message);
    });
  }

  it('accepts the documented options', () => {
    const session = createSession(spec, {
      now: fixedNow,
      timeZone: 'Europe/Paris',
      similarityThreshold: 0,
      escalateAfter: 0,
      unplannedCritical: 'confirm',
      historyLimit: 0,
      limits: { maxRefusalMemo: 1 },
    });
    expect(session.propose({ action: { name: 'BankCheckBalance', args: {} } }).decision).toBe(
      'allow',
    );
    expect(session.history).toHaveLength(0); // a history limit of 0 keeps nothing
  });
});

describe('D9: createSession validates its spec argument', () => {
  it('fails closed for a missing spec: undefined and null give a session that refuses everything', () => {
    for (const missing of [undefined, null]) {
      const session = createSession(missing as undefined);
      expect(session).toBeInstanceOf(NoSpecSession);
      expect(session.propose({ finish: true })).toMatchObject({
        decision: 'reject',
        reasons: [{ code: 'no-spec' }],
      });
    }
  });

  it('throws a TypeError naming the parameter for anything that is not a checked spec', () => {
    for (const garbage of [{}, 42, 'BankCheckBalance() -> Done', [], { rules: [] }]) {
      expect(() => createSession(garbage as never)).toThrow(TypeError);
      expect(() => createSession(garbage as never)).toThrow(
        /createSession: 'spec' must be a checked Spec/,
      );
    }
  });
});
