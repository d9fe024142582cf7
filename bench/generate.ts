import { createSchema, type PredicateDeclaration, type Schema } from '../src/language/index.js';

/**
 * Synthetic specs of a given size for benchmarks. Rules come in groups of ten that
 * share one state predicate (a screen, or a tool's result), and every two rules of a
 * group share an action, as real specs name a tool in one or two rules: a proposal
 * touches two rules and one state, whatever the size of the spec.
 */
export const groupSize = 10;
export const rulesPerAction = 2;

/** How many rules a bench's proposals touch, spread evenly over the spec. */
export const workingSet = 10;

/** The rules the proposals touch: `workingSet` of them, spread evenly over the spec. */
export function workingRules(rules: number): number[] {
  return Array.from({ length: workingSet }, (_, index) => Math.floor((index * rules) / workingSet));
}

function actionName(rule: number): string {
  return `Act${Math.floor(rule / rulesPerAction)}`;
}

export interface GeneratedSpec {
  readonly schema: Schema;
  readonly text: string;
  readonly groups: number;
}

export function generateSpec(rules: number): GeneratedSpec {
  const groups = Math.max(1, Math.ceil(rules / groupSize));
  const predicates: PredicateDeclaration[] = [];
  for (let group = 0; group < groups; group++) {
    predicates.push({
      name: `Screen${group}`,
      kind: 'state',
      description: `The state of screen ${group}: its level, mode and selected item.`,
      keys: [],
      critical: false,
      variables: [
        { name: 'level', type: { kind: 'number' }, description: 'How far the form is filled in.' },
        { name: 'mode', type: { kind: 'enum', values: ['on', 'off', 'auto'] } },
        { name: 'item', type: { kind: 'text' } },
        { name: 'when', type: { kind: 'time' } },
      ],
    });
    for (let action = 0; action < groupSize / rulesPerAction; action++) {
      predicates.push({
        name: actionName(group * groupSize + action * rulesPerAction),
        kind: 'action',
        description: `Presses button ${action} of screen ${group}.`,
        keys: [],
        critical: true,
        variables: [
          { name: 'x', type: { kind: 'number' } },
          { name: 'target', type: { kind: 'text' } },
        ],
      });
    }
  }
  const lines: string[] = [];
  for (let rule = 0; rule < rules; rule++) {
    const group = Math.floor(rule / groupSize);
    lines.push('@repeat');
    lines.push(
      `Step${rule}: Screen${group}(level >= 1, mode in [on, auto], when < 19:00) & ${actionName(rule)}(x = ${rule}, target = "t${group}") -> Goal${rule}`,
    );
  }
  // One way to finish per group, needing its first step and a state it never reaches.
  for (let group = 0; group < groups; group++) {
    lines.push(`Goal${group * groupSize} & Screen${group}(level > 1000) -> Done`);
  }
  return {
    schema: createSchema(`bench-${rules}`, predicates),
    text: `${lines.join('\n')}\n`,
    groups,
  };
}

/** A proposal the spec allows: the first step of a group, with its preconditions observed. */
export function allowedProposal(rule: number): unknown {
  const group = Math.floor(rule / groupSize);
  return { action: { name: actionName(rule), args: { x: rule, target: `t${group}` } } };
}

/** A proposal the spec refuses with unmet conditions: a step with the wrong argument. */
export function refusedProposal(rule: number): unknown {
  return { action: { name: actionName(rule), args: { x: -1 - rule, target: 'elsewhere' } } };
}

/** An observation that makes a group's state preconditions hold. */
export function preparingObservation(group: number): unknown {
  return { updates: { [`Screen${group}`]: { level: 5, mode: 'on', item: 'Item', when: '18:00' } } };
}
