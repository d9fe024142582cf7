import { isDecimal, normalizeText, type VariableDeclaration } from '../language/index.js';
import type { SessionClock } from './clock.js';
import { parseValue, type ValueOptions } from './values.js';

/**
 * Arguments given for a record (`record{...}`, `list<record{...}>`, LANGUAGE.md §7) are
 * read by their declared fields: each field present must fit its type (a date field
 * takes "2025-03-14", not 42), a required field must be given, and a field the schema
 * does not declare is refused where the object is closed (`additionalProperties: false`)
 * — a field the engine does not read is one the tool may act on. An open object (JSON
 * Schema's default) takes undeclared fields, which no spec can name: they are ignored,
 * except one whose name folds to a declared field's (`Row` next to `row`), which a tool
 * may read as that field (T4). Parts the schema leaves `json` take anything. A tool's result is not refused this
 * way: its fields are read when a rule or guard looks at them, and one that does not fit
 * makes that constraint false in a rule and true in a guard (see access-test.ts).
 */

/** Fields checked in one argument before giving up (arrays of records multiply them). */
const maxCheckedValues = 10_000;

const fieldOptions: ValueOptions = { json: false, foreignOffsets: 'refuse' };

/**
 * A field name as a tool lax about names may read it: case, width, accents' composition,
 * invisible characters, spaces and punctuation ignored (`Row`, `ROW`, `r_o-w` are `row`).
 */
function foldedKey(key: string): string {
  // A longer key cannot fold to a declared name; its start is enough to tell.
  return normalizeText(key.slice(0, 1024)).replace(/[^\p{L}\p{N}]/gu, '');
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isDecimal(value);
}

interface Check {
  readonly clock: SessionClock;
  budget: number;
}

/**
 * Why a value does not fit the record (or list of records) `variable` declares, starting
 * with the path to the part that does not (`address.zip: …`); undefined if it fits.
 */
export function recordArgumentProblem(
  value: unknown,
  variable: VariableDeclaration,
  clock: SessionClock,
): string | undefined {
  return valueProblem(value, variable, variable.name, { clock, budget: maxCheckedValues });
}

function valueProblem(
  value: unknown,
  variable: VariableDeclaration,
  where: string,
  check: Check,
): string | undefined {
  check.budget -= 1;
  if (check.budget < 0) return 'it has too many fields to check';
  if (variable.jsonText === true && variable.record === undefined) return undefined;
  if (variable.record === undefined) {
    const parsed = parseValue(value, variable.type, check.clock, fieldOptions);
    return parsed.ok ? undefined : `${where}: ${parsed.problem}`;
  }
  if (variable.type.kind === 'list') {
    if (!Array.isArray(value)) return `${where} must be a list of objects`;
    const element: VariableDeclaration = { ...variable, type: { kind: 'text' } };
    for (let index = 0; index < value.length; index++) {
      const problem = valueProblem(value[index], element, `${where}[${index}]`, check);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (!isObject(value)) return `${where} must be an object`;
  const fields = variable.record.fields;
  const open = variable.record.open === true;
  let folded: Map<string, string> | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (fields.some((field) => (field.sourcePath?.[0] ?? field.name) === key)) continue;
    const takes = fields.map((field) => field.sourcePath?.[0] ?? field.name);
    if (!open) return `${where} has no field '${key.slice(0, 64)}' (it takes ${takes.join(', ')})`;
    check.budget -= 1;
    if (check.budget < 0) return 'it has too many fields to check';
    folded ??= new Map(takes.map((name) => [foldedKey(name), name]));
    const declared = folded.get(foldedKey(key));
    if (declared !== undefined)
      return `${where} has a field '${key.slice(0, 64)}' that reads like its field '${declared}'; give it once, as '${declared}'`;
  }
  for (const field of fields) {
    const key = field.sourcePath?.[0] ?? field.name;
    const given = Object.hasOwn(value, key) ? value[key] : undefined;
    const path = `${where}.${key}`;
    if (given === undefined || given === null) {
      if (field.required === true) return `${path} is required`;
      continue;
    }
    const problem = valueProblem(given, field, path, check);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
