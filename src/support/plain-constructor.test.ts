import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isRecord } from './is-record.js';
import { plainConstructor } from './plain-constructor.js';

const Point = plainConstructor<[x: number, y: number | undefined], { x: number; y?: number }>(
  function (this: Record<string, unknown>, x, y) {
    this.x = x;
    if (y !== undefined) this.y = y;
  },
);

describe('plainConstructor', () => {
  it('makes objects every reader takes for plain ones', () => {
    const point = new Point(1, 2);
    expect(Object.getPrototypeOf(point)).toBe(Object.prototype);
    expect(point.constructor).toBe(Object);
    expect(isRecord(point)).toBe(true);
    expect(inspect(point)).toBe('{ x: 1, y: 2 }');
    expect(JSON.stringify(point)).toBe('{"x":1,"y":2}');
    expect(structuredClone(point)).toStrictEqual({ x: 1, y: 2 });
  });

  it('keeps the fields it sets, in the order it sets them, and no others', () => {
    expect(Object.keys(new Point(1, undefined))).toEqual(['x']);
    expect(Object.keys(new Point(3, 4))).toEqual(['x', 'y']);
    expect(new Point(3, 4)).toStrictEqual({ x: 3, y: 4 });
  });
});
