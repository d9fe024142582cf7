import type {
  PredicateDeclaration,
  VariableDeclaration,
  VariableType,
} from '../../language/index.js';

/** Small builders for the worked examples' schemas (v1 and v2 examples share them). */

export const text: VariableType = { kind: 'text' };
export const number: VariableType = { kind: 'number' };
export const boolean: VariableType = { kind: 'boolean' };

export function variable(
  name: string,
  type: VariableType,
  description?: string,
): VariableDeclaration {
  return description === undefined ? { name, type } : { name, type, description };
}

export function state(
  name: string,
  description: string,
  variables: VariableDeclaration[],
): PredicateDeclaration {
  return { name, kind: 'state', description, variables, keys: [], critical: false };
}

/** A tool as the tool-schema loaders make it: an action and its result predicate. */
export function tool(
  name: string,
  description: string,
  parameters: VariableDeclaration[],
  returns: VariableDeclaration[],
  critical: boolean,
): PredicateDeclaration[] {
  return [
    {
      name,
      kind: 'action',
      description,
      variables: parameters,
      keys: [],
      critical,
      resultPredicate: `${name}Result`,
    },
    {
      name: `${name}Result`,
      kind: 'state',
      description: `The result of the last ${name} call.`,
      variables: returns,
      keys: [],
      critical: false,
      resultOf: name,
    },
  ];
}
