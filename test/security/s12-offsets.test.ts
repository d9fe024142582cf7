import { describe, expect, it } from 'vitest';
import { loadToolSchema, type Schema, type SessionOptions, type Verdict } from '../../src/index.js';
import { sessionFor } from './support.js';

/**
 * S12: a date or time whose explicit offset differs from the session zone's at that
 * instant is `invalid-proposal` (LANGUAGE.md §5.1): the tool might read its local part
 * (05:30, the 25th) while a conversion into the session's zone says another. An offset
 * equal to the session zone's is accepted and means its local part.
 */
const alarmTools = JSON.stringify({
  tools: [
    {
      name: 'SetAlarm',
      description: 'Sets an alarm.',
      inputSchema: {
        type: 'object',
        properties: {
          time: { type: 'string', format: 'time' },
          date: { type: 'string', format: 'date' },
        },
      },
    },
  ],
});

function alarmSchema(): Schema {
  const loaded = loadToolSchema(alarmTools);
  if (!loaded.ok) throw new Error('the tools do not load');
  return loaded.value;
}

function setAlarm(guard: string, args: Record<string, unknown>, options: SessionOptions = {}) {
  const spec = `${guard}\nSetAlarm() -> AlarmSet\nAlarmSet -> Done\n`;
  return sessionFor(spec, alarmSchema(), options).propose({ action: { name: 'SetAlarm', args } });
}

function expectOffsetRefused(verdict: Verdict, offset: string): void {
  expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
  expect(verdict.reasons[0]?.code).toBe('invalid-proposal');
  expect(verdict.feedback).toContain(`has the offset ${offset}`);
}

describe('S12: instants with another offset than the session zone are refused', () => {
  const early = 'reject SetAlarm(time < 06:00)';

  it("refuses the review's +14:00 and -08:00 times in a UTC session", () => {
    expectOffsetRefused(setAlarm(early, { time: '2025-03-14T05:30:00+14:00' }), '+14:00');
    expectOffsetRefused(setAlarm(early, { time: '2025-03-14T05:30:00-08:00' }), '-08:00');
  });

  it("refuses the review's date with -05:00 in a UTC session", () => {
    expectOffsetRefused(
      setAlarm('reject SetAlarm(date = 2025-12-25)', { date: '2025-12-25T23:00:00-05:00' }),
      '-05:00',
    );
  });

  it("reads an instant with the session zone's offset as its local part", () => {
    expect(setAlarm(early, { time: '2025-03-14T05:30:00Z' }).decision).toBe('reject');
    expect(setAlarm(early, { time: '2025-03-14T05:30:00+00:00' }).decision).toBe('reject');
    expect(setAlarm(early, { time: '2025-03-14T07:30:00Z' }).decision).toBe('allow');
    const newYork = { timeZone: 'America/New_York' };
    expect(
      setAlarm('reject SetAlarm(date = 2025-12-25)', { date: '2025-12-25T23:00:00-05:00' }, newYork)
        .decision,
    ).toBe('reject');
    expectOffsetRefused(setAlarm(early, { time: '2025-03-14T05:30:00Z' }, newYork), 'Z');
  });

  it('takes times without an offset as wall-clock time in the session zone', () => {
    expect(setAlarm(early, { time: '05:30' }).decision).toBe('reject');
    expect(setAlarm(early, { time: '2025-03-14T05:30' }).decision).toBe('reject');
  });
});
