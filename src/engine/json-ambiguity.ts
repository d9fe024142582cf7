import { isDecimal, readNumber } from '../language/index.js';

/**
 * What `JSON.parse` reads silently one way while another parser may read it another:
 * a key given twice in one object (`"amount": 900, "amount": 500` — `JSON.parse` keeps
 * the last, a first-wins parser on the tool's side sends 900), and a number no double
 * can hold (`1234567890123456833` reads as `…800`; `1e400` as Infinity). A trace line
 * with either is refused, with where it is, rather than checked as something the agent
 * did not write.
 */
export interface JsonAmbiguity {
  readonly message: string;
  /** 1-based column of the key or number. */
  readonly column: number;
}

interface ObjectFrame {
  readonly kind: 'object';
  keys: Set<string> | undefined;
  /** Whether the next string is a key (after `{` or `,`), not a value. */
  expectKey: boolean;
}

type Frame = ObjectFrame | { readonly kind: 'array' };

const numberShape = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function cut(text: string): string {
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** The end of the string literal that starts at `start` (its opening quote). */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === 34) return index + 1; // "
    index += code === 92 ? 2 : 1; // \ escapes one character (\uXXXX's digits are plain)
  }
  return text.length;
}

/**
 * Scans text that `JSON.parse` accepted for the ambiguities above, in one linear pass.
 * Returns the first one found, or undefined.
 */
export function findJsonAmbiguity(text: string): JsonAmbiguity | undefined {
  const stack: Frame[] = [];
  let index = 0;
  while (index < text.length) {
    const character = text[index];
    const top = stack[stack.length - 1];
    switch (character) {
      case '{':
        stack.push({ kind: 'object', keys: undefined, expectKey: true });
        index++;
        break;
      case '[':
        stack.push({ kind: 'array' });
        index++;
        break;
      case '}':
      case ']':
        stack.pop();
        index++;
        break;
      case ',':
        if (top?.kind === 'object') top.expectKey = true;
        index++;
        break;
      case ':':
        if (top?.kind === 'object') top.expectKey = false;
        index++;
        break;
      case '"': {
        const end = stringEnd(text, index);
        if (top?.kind === 'object' && top.expectKey) {
          // Keys compare decoded: "a" and "\u0061" are the same key.
          const literal = text.slice(index, end);
          const key = literal.includes('\\')
            ? (JSON.parse(literal) as string)
            : literal.slice(1, -1);
          top.keys ??= new Set();
          if (top.keys.has(key)) {
            return {
              message: `the key "${cut(key)}" is given twice in one object; a parser that keeps the first would read another value than one that keeps the last`,
              column: index + 1,
            };
          }
          top.keys.add(key);
        }
        index = end;
        break;
      }
      default: {
        if (
          character === '-' ||
          (character !== undefined && character >= '0' && character <= '9')
        ) {
          numberShape.lastIndex = index;
          const match = numberShape.exec(text);
          const written = match?.[0] ?? character;
          const reading = readNumber(written);
          if (!reading.ok || isDecimal(reading.value)) {
            const problem = !reading.ok
              ? reading.problem === 'overflow'
                ? 'is beyond the range of numbers'
                : reading.problem === 'underflow'
                  ? 'is too close to zero to be represented'
                  : 'has too many digits'
              : `would be read as ${String(Number(written))}`;
            return {
              message: `the number ${cut(written)} ${problem}; write it as a string ("${cut(written)}") to keep it exact`,
              column: index + 1,
            };
          }
          index += written.length;
        } else index++; // whitespace, true, false, null
      }
    }
  }
  return undefined;
}
