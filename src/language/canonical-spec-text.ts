import type { AtomNode, SpecNode } from './ast.js';
import type { Spec } from './checker/spec.js';
import { print } from './printer.js';

/**
 * A spec's canonical printed form without comments, and with objective references
 * written bare (`Reserve()` is `Reserve`): the spelling a vote's group and the experience
 * memory show. Labels and rule order stay; what a spec means, for voting, is `meaningKey`.
 */
export function canonicalSpecText(spec: Spec): string {
  // A spec read from a compiled document has no syntax tree to print: its text stands for it.
  const ast = spec.ast;
  if (ast === undefined) return spec.source;
  const bareAtom = (atom: AtomNode): AtomNode =>
    atom.kind === 'disjunction'
      ? { ...atom, alternatives: atom.alternatives.map((atoms) => atoms.map(bareAtom)) }
      : atom.kind === 'pattern' &&
          atom.parenthesized &&
          atom.constraints.length === 0 &&
          (atom.absent ?? []).length === 0 &&
          !spec.schema.predicates.has(atom.name.name)
        ? { ...atom, parenthesized: false }
        : atom;
  const bare: SpecNode = {
    ...ast,
    items: ast.items.map((item) =>
      item.kind === 'rule'
        ? { ...item, comments: [], body: item.body.map(bareAtom) }
        : { ...item, comments: [] },
    ),
    trailingComments: [],
  };
  return print(bare);
}
