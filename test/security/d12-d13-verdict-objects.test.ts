import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/index.js';
import { balanceOf, bankSchema, checkBalance, exampleText, fixedNow, specFor } from './support.js';

/** D12, D13: verdicts are safe to hold and to read. */
describe('D12: verdicts never share mutable arrays between sessions', () => {
  it('freezes the shared performs array, so one host cannot change another session', () => {
    const spec = specFor(exampleText('bank-transfer/spec.intent'), bankSchema());
    const first = createSession(spec, { now: fixedNow });
    const second = createSession(spec, { now: fixedNow });
    const verdict = first.propose(checkBalance);
    expect(verdict.performs).toEqual(['BalanceKnown']);
    expect(() => (verdict.performs as string[]).push('Hacked')).toThrow(TypeError);
    expect(() => {
      (verdict.performs as string[])[0] = 'Spoofed';
    }).toThrow(TypeError);
    expect(() => (verdict.reasons as unknown[]).push({})).toThrow(TypeError);
    const other = second.propose(checkBalance);
    expect(other).toMatchObject({ performs: ['BalanceKnown'], achieved: { BalanceKnown: 1 } });
    second.observe(balanceOf(1500));
    expect(second.status().achieved).toEqual({ BalanceKnown: 1 });
  });

  it('freezes verdict.achieved, which verdicts of the same count share, at every count', () => {
    const spec = specFor('@repeat\nBankCheckBalance() -> Known\nKnown >= 70 -> Done', bankSchema());
    const first = createSession(spec, { now: fixedNow });
    const second = createSession(spec, { now: fixedNow });
    const verdict = first.propose(checkBalance);
    expect(verdict.achieved).toEqual({ Known: 1 });
    expect(Object.isFrozen(verdict.achieved)).toBe(true);
    expect(() => {
      (verdict.achieved as Record<string, number>).Known = 99;
    }).toThrow(TypeError);
    expect(second.propose(checkBalance).achieved).toEqual({ Known: 1 });
    expect(first.status().achieved).toEqual({ Known: 1 });
    // Past the counts whose record is shared, each verdict has its own, frozen as well.
    for (let count = 2; count <= 80; count++) {
      const next = first.propose(checkBalance);
      expect(next.achieved).toEqual({ Known: count });
      expect(Object.isFrozen(next.achieved)).toBe(true);
      expect(next.done).toBe(count >= 70);
    }
    expect(first.history.at(1)).toMatchObject({ verdict: { achieved: { Known: 2 } } });
    expect(second.propose(checkBalance).achieved).toEqual({ Known: 2 });
  });
});

describe('D13: an objective named __proto__ is reported like any other', () => {
  it('keeps __proto__ as an own property of verdict.achieved', () => {
    const spec = specFor('BankCheckBalance() -> __proto__\n__proto__ -> Done', bankSchema());
    const session = createSession(spec, { now: fixedNow });
    const verdict = session.propose(checkBalance);
    expect(verdict.decision).toBe('allow');
    expect(verdict.performs).toEqual(['__proto__']);
    expect(Object.hasOwn(verdict.achieved, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(verdict.achieved, '__proto__')?.value).toBe(1);
    expect(Object.isFrozen(verdict.achieved)).toBe(true);
    expect(Object.getPrototypeOf(verdict.achieved)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(verdict.achieved))).toEqual(JSON.parse('{"__proto__": 1}'));
    expect(session.status().done).toBe(true);
  });
});
