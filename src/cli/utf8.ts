import { IntentguardError, LineIndex } from '../language/index.js';

/** Bytes that are not UTF-8, with where the first bad sequence starts. Code `invalid-utf8`. */
export class InvalidUtf8Error extends IntentguardError {
  static override readonly marker = 'intentguard.error.InvalidUtf8Error';
  static readonly errorName = 'IntentguardInvalidUtf8Error';
  override readonly name = InvalidUtf8Error.errorName;
  override readonly code = 'invalid-utf8';

  constructor(
    /** 0-based byte offset of the first byte that does not decode. */
    readonly byteOffset: number,
    /** That byte's value. */
    readonly byte: number | undefined,
    /** 1-based line and column (UTF-16 code units, as in diagnostics) of that byte. */
    readonly line: number,
    readonly column: number,
  ) {
    super({
      code: 'invalid-utf8',
      message: `not valid UTF-8: ${byte === undefined ? 'a truncated character' : `byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')}`} at byte offset ${byteOffset}`,
    });
  }
}

// `fatal`: a replaced byte (U+FFFD) would silently change a literal the spec compares
// with. `ignoreBOM`: the byte order mark stays in the text, as `readFile(…, 'utf8')` kept
// it; the lexer and the JSON readers skip it themselves.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The offset of the first byte that starts an ill-formed UTF-8 sequence (overlong forms,
 * surrogates, code points past U+10FFFF and truncated sequences included, as the WHATWG
 * decoder judges them); -1 when every byte is well-formed.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const length = bytes.length;
  let index = 0;
  while (index < length) {
    const lead = bytes[index] ?? 0;
    if (lead < 0x80) {
      index++;
      continue;
    }
    let continuation: number;
    let lower = 0x80;
    let upper = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) continuation = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      continuation = 2;
      if (lead === 0xe0) lower = 0xa0;
      if (lead === 0xed) upper = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      continuation = 3;
      if (lead === 0xf0) lower = 0x90;
      if (lead === 0xf4) upper = 0x8f;
    } else return index;
    for (let next = 1; next <= continuation; next++) {
      const byte = bytes[index + next];
      if (byte === undefined || byte < lower || byte > upper) return index;
      lower = 0x80;
      upper = 0xbf;
    }
    index += continuation + 1;
  }
  return -1;
}

/**
 * Decodes UTF-8 strictly: ill-formed bytes throw an `InvalidUtf8Error` that says where
 * they are, instead of becoming U+FFFD.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    // The decoder and the scan judge alike; the fallbacks only guard against a mismatch.
    const at = offset === -1 ? bytes.length : offset;
    const before = lenientDecoder.decode(bytes.subarray(0, at));
    const position = new LineIndex(before).position(before.length);
    throw new InvalidUtf8Error(at, bytes[at], position.line, position.column);
  }
}
