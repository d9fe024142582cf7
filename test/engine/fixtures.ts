import { readFileSync } from 'node:fs';
import {
  checkSpec,
  createSchema,
  type PredicateDeclaration,
  renderDiagnostics,
  type Schema,
  type Spec,
  type VariableDeclaration,
  type VariableType,
} from '../../src/language/index.js';
import { sharedUrl } from '../support/shared.js';

/**
 * Schemas and specs for the engine's tests, written the short way:
 * `state('Alarm', { id: 'text', time: 'time' }, { keys: ['id'] })`.
 */

/** The clock every example and most tests run at (FORMATS.md §4 `--now`). */
export const fixedNow = '2025-03-14T12:00';

export const sharedRoot = sharedUrl();

export function readShared(path: string): string {
  return readFileSync(new URL(path, sharedRoot), 'utf8');
}

/** `text`, `number`, `enum[a, b]`, `list<text>`, … as a `VariableType`. */
export function typeOf(spelling: string): VariableType {
  const enumMatch = /^enum\[(.*)\]$/.exec(spelling);
  if (enumMatch)
    return { kind: 'enum', values: (enumMatch[1] ?? '').split(',').map((member) => member.trim()) };
  const listMatch = /^list<(text|number)>$/.exec(spelling);
  if (listMatch) return { kind: 'list', element: listMatch[1] as 'text' | 'number' };
  if (['text', 'number', 'boolean', 'date', 'time', 'datetime'].includes(spelling)) {
    return { kind: spelling as 'text' };
  }
  throw new Error(`unknown type spelling ${spelling}`);
}

type VariableSpec =
  | string
  | (Omit<VariableDeclaration, 'name' | 'type'> & { readonly type: string });

function variablesOf(variables: Readonly<Record<string, VariableSpec>>): VariableDeclaration[] {
  return Object.entries(variables).map(([name, spec]) =>
    typeof spec === 'string'
      ? { name, type: typeOf(spec) }
      : { ...spec, name, type: typeOf(spec.type) },
  );
}

export function state(
  name: string,
  variables: Readonly<Record<string, VariableSpec>> = {},
  options: {
    readonly keys?: readonly string[];
    readonly description?: string;
    readonly resultOf?: string;
    /** Set only by observations (FORMATS.md §1); a variable is marked with `{ observed: true }`. */
    readonly observed?: boolean;
  } = {},
): PredicateDeclaration {
  return {
    name,
    kind: 'state',
    description: options.description ?? `The ${name} state.`,
    variables: variablesOf(variables),
    keys: options.keys ?? [],
    critical: false,
    ...(options.resultOf !== undefined ? { resultOf: options.resultOf } : {}),
    ...(options.observed === true ? { observed: true } : {}),
  };
}

export function action(
  name: string,
  variables: Readonly<Record<string, VariableSpec>> = {},
  options: {
    readonly critical?: boolean;
    readonly description?: string;
    readonly resultPredicate?: string;
    readonly sourceName?: string;
  } = {},
): PredicateDeclaration {
  return {
    name,
    kind: 'action',
    description: options.description ?? `Calls ${name}.`,
    variables: variablesOf(variables),
    keys: [],
    critical: options.critical ?? false,
    ...(options.resultPredicate !== undefined ? { resultPredicate: options.resultPredicate } : {}),
    ...(options.sourceName !== undefined ? { sourceName: options.sourceName } : {}),
  };
}

/** A tool `T` as the tool-schema loaders make it: action `T` and state `TResult`. */
export function tool(
  name: string,
  parameters: Readonly<Record<string, VariableSpec>>,
  results: Readonly<Record<string, VariableSpec>>,
  options: { readonly critical?: boolean; readonly sourceName?: string } = {},
): PredicateDeclaration[] {
  return [
    action(name, parameters, { ...options, resultPredicate: `${name}Result` }),
    state(`${name}Result`, results, {
      resultOf: name,
      description: `The result of the last ${name} call.`,
      observed: true,
    }),
  ];
}

export function schemaOf(
  ...predicates: readonly (PredicateDeclaration | readonly PredicateDeclaration[])[]
): Schema {
  return createSchema('test', predicates.flat());
}

/** Checks spec text; a test that needs a valid spec fails with the rendered diagnostics. */
export function specOf(text: string, schema: Schema): Spec {
  const result = checkSpec(text, schema);
  if (!result.ok)
    throw new Error(`spec does not check:\n${renderDiagnostics(result.diagnostics, text)}`);
  return result.value;
}
