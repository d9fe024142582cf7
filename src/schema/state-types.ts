import type { VariableType } from '../language/schema-model.js';

// Spellings are compared after lower-casing and removing white space, so `List<Text>`,
// `list< text >` and `LIST<TEXT>` all name the same type.
const typesBySpelling: ReadonlyMap<string, VariableType | 'enum'> = new Map<
  string,
  VariableType | 'enum'
>([
  ['text', { kind: 'text' }],
  ['string', { kind: 'text' }],
  ['number', { kind: 'number' }],
  ['integer', { kind: 'number' }],
  ['float', { kind: 'number' }],
  ['boolean', { kind: 'boolean' }],
  ['date', { kind: 'date' }],
  ['time', { kind: 'time' }],
  ['datetime', { kind: 'datetime' }],
  ['enum', 'enum'],
  ['list<text>', { kind: 'list', element: 'text' }],
  ['list<string>', { kind: 'list', element: 'text' }],
  ['list<number>', { kind: 'list', element: 'number' }],
  ['list<integer>', { kind: 'list', element: 'number' }],
  ['list<float>', { kind: 'list', element: 'number' }],
]);

/**
 * `Json` and `List<Json>` (LANGUAGE.md §7): any JSON value, or a list of them, kept as
 * JSON text whose structure paths and filters read at run time.
 */
const jsonTypesBySpelling: ReadonlyMap<string, VariableType> = new Map<string, VariableType>([
  ['json', { kind: 'text' }],
  ['list<json>', { kind: 'list', element: 'text' }],
]);

/** The type of a `Json` or `List<Json>` spelling; undefined for every other spelling. */
export function parseJsonStateType(spelling: string): VariableType | undefined {
  return jsonTypesBySpelling.get(spelling.toLowerCase().replace(/\s+/g, ''));
}

/**
 * The type a states file names (FORMATS.md §1), case-insensitively. `'enum'` means the
 * values come from `enum_values`; undefined means the spelling is unknown.
 */
export function parseStateType(spelling: string): VariableType | 'enum' | undefined {
  return typesBySpelling.get(spelling.toLowerCase().replace(/\s+/g, ''));
}

/**
 * `Record` and `List<Record>` (LANGUAGE.md §7): a structured value whose `fields` the
 * file declares, each like a variable; undefined for every other spelling.
 */
export function parseRecordStateType(spelling: string): VariableType | undefined {
  const normalized = spelling.toLowerCase().replace(/\s+/g, '');
  if (normalized === 'record') return { kind: 'text' };
  if (normalized === 'list<record>') return { kind: 'list', element: 'text' };
  return undefined;
}
