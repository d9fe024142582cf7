import { describe, expect, it } from 'vitest';
import { decodeUtf8, firstInvalidUtf8, InvalidUtf8Error } from './utf8.js';

function bytes(...values: number[]): Uint8Array {
  return Uint8Array.from(values);
}

function failure(input: Uint8Array): InvalidUtf8Error {
  try {
    decodeUtf8(input);
  } catch (error) {
    if (InvalidUtf8Error.isInstance(error)) return error;
    throw error;
  }
  throw new Error('decoded');
}

describe('decodeUtf8', () => {
  it('decodes well-formed UTF-8 and keeps a byte order mark', () => {
    const text = '\ufeffé → 😀\n';
    expect(decodeUtf8(new TextEncoder().encode(text))).toBe(text);
    expect(decodeUtf8(bytes())).toBe('');
  });

  it('finds the first ill-formed sequence as the WHATWG decoder judges it', () => {
    expect(firstInvalidUtf8(bytes(0x41, 0xff))).toBe(1);
    expect(firstInvalidUtf8(bytes(0xc0, 0x80))).toBe(0); // overlong
    expect(firstInvalidUtf8(bytes(0xe0, 0x80, 0x80))).toBe(0); // overlong
    expect(firstInvalidUtf8(bytes(0xed, 0xa0, 0x80))).toBe(0); // a surrogate
    expect(firstInvalidUtf8(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(0); // past U+10FFFF
    expect(firstInvalidUtf8(bytes(0x41, 0xe2, 0x82))).toBe(1); // truncated
    expect(firstInvalidUtf8(bytes(0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80))).toBe(-1);
  });

  it('says where the bad byte is: line, column in UTF-16 units, byte offset', () => {
    const error = failure(bytes(...new TextEncoder().encode('ab\r\né😀x\n"Al'), 0xff, 0xfe));
    expect(error).toMatchObject({ line: 3, column: 4, byteOffset: 15, byte: 0xff });
    expect(error.message).toBe('not valid UTF-8: byte 0xFF at byte offset 15');
    const mac = failure(bytes(0x41, 0x0d, 0x42, 0x0d, 0x43, 0xc3));
    expect(mac).toMatchObject({ line: 3, column: 2, byteOffset: 5 });
  });
});
