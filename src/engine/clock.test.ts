import { describe, expect, it } from 'vitest';
import { parseDate } from '../language/index.js';
import { createClock, wallClock } from './clock.js';

const day = parseDate('2025-03-14')!;

describe('createClock', () => {
  it('takes a naive date-time as wall-clock time, whatever the time zone', () => {
    for (const timeZone of ['UTC', 'America/New_York', 'Asia/Tokyo']) {
      expect(createClock('2025-03-14T12:00', timeZone)).toEqual({
        today: day,
        time: 12 * 3600,
        dateTime: day * 86_400 + 12 * 3600,
        timeZone,
      });
    }
  });

  it('accepts seconds, a space separator, surrounding blanks and a bare date (midnight)', () => {
    expect(createClock('2025-03-14T12:00:30').time).toBe(12 * 3600 + 30);
    expect(createClock(' 2025-03-14 08:15 ').time).toBe(8 * 3600 + 15 * 60);
    expect(createClock('2025-03-14')).toMatchObject({
      today: day,
      time: 0,
      dateTime: day * 86_400,
    });
  });

  it('defaults to UTC', () => {
    expect(createClock('2025-03-14T12:00').timeZone).toBe('UTC');
  });

  it('converts an instant into the time zone: ISO with offset, Date, epoch milliseconds', () => {
    const instant = '2025-03-14T02:30:00Z';
    expect(createClock(instant)).toMatchObject({ today: day, time: 2 * 3600 + 30 * 60 });
    // In New York (UTC-4 in March after DST) it is still the 13th.
    expect(createClock(instant, 'America/New_York')).toMatchObject({
      today: day - 1,
      time: 22 * 3600 + 30 * 60,
    });
    expect(createClock(new Date(instant), 'Asia/Tokyo')).toMatchObject({
      today: day,
      time: 11 * 3600 + 30 * 60,
    });
    expect(createClock(Date.parse(instant), 'UTC')).toMatchObject({
      today: day,
      time: 2 * 3600 + 30 * 60,
    });
    expect(createClock('2025-03-14T12:00+05:30')).toMatchObject({
      today: day,
      time: 6 * 3600 + 30 * 60,
    });
  });

  it('keeps dateTime consistent with today and time', () => {
    const clock = createClock(new Date('2025-07-01T23:59:59Z'), 'Pacific/Kiritimati');
    expect(clock.dateTime).toBe(clock.today * 86_400 + clock.time);
    expect(clock.time).toBeGreaterThanOrEqual(0);
    expect(clock.time).toBeLessThan(86_400);
  });

  it('uses the current time when none is given', () => {
    const before = Math.floor(Date.now() / 86_400_000);
    const clock = createClock(undefined);
    const after = Math.floor(Date.now() / 86_400_000);
    expect(clock.today).toBeGreaterThanOrEqual(before);
    expect(clock.today).toBeLessThanOrEqual(after);
  });

  it.each(['tomorrow', '2025-13-01', '2025-03-14T24:00', '14.03.2025', ''])(
    'refuses the string %j with a hint',
    (input) => {
      expect(() => createClock(input)).toThrow(RangeError);
      expect(() => createClock(input)).toThrow(
        /is not a date or date-time \(use YYYY-MM-DDTHH:MM\)/,
      );
    },
  );

  it('refuses invalid instants and unknown time zones', () => {
    expect(() => createClock(new Date(Number.NaN))).toThrow(/is not a valid time/);
    expect(() => createClock(Number.NaN)).toThrow(/is not a valid time/);
    expect(() => createClock('2025-03-14T99:00Z')).toThrow(/is not a valid time/);
    expect(() => createClock(new Date(), 'Mars/Olympus_Mons')).toThrow(RangeError);
  });
});

describe('wallClock', () => {
  it('reads the civil date and time of an instant in a zone', () => {
    const instant = new Date('2024-12-31T23:00:00Z');
    expect(wallClock(instant, 'UTC')).toEqual({
      days: parseDate('2024-12-31')!,
      seconds: 23 * 3600,
    });
    expect(wallClock(instant, 'Europe/Berlin')).toEqual({
      days: parseDate('2025-01-01')!,
      seconds: 0,
    });
  });

  it('reports midnight as 0 seconds, not 24:00', () => {
    expect(wallClock(new Date('2025-03-14T00:00:00Z'), 'UTC')).toEqual({ days: day, seconds: 0 });
  });
});
