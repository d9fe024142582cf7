import type { SessionClock } from './clock.js';
import type { CompiledPredicate, CompiledSpec } from './compiled-spec.js';
import type { ProposedAction } from './evaluation.js';
import { type Instance, type StateUpdate, type StateView, singleKey } from './state.js';
import { parseValue, type Value, valueKey } from './values.js';

/**
 * Reading proposals and observations (FORMATS.md §2). They come from agents and
 * tools, so nothing is trusted: every unknown name or ill-typed value becomes a
 * problem that is spelled out, and nothing is applied unless everything reads.
 */
export interface ProposalProblem {
  readonly message: string;
  readonly predicate?: string;
  readonly variable?: string;
  readonly actual?: string;
}

export interface NormalizedProposal {
  readonly action: ProposedAction | undefined;
  readonly updates: readonly StateUpdate[];
  readonly objective: string | undefined;
  readonly finish: boolean;
  readonly label: string | undefined;
}

export type ReadResult<T> =
  | { readonly ok: true; readonly value: T; readonly ignored: readonly ProposalProblem[] }
  | { readonly ok: false; readonly problems: readonly ProposalProblem[] };

interface ReadContext {
  readonly spec: CompiledSpec;
  readonly clock: SessionClock;
  readonly view: StateView;
  /** Observations ignore fields the schema does not know (tools return more than they declare). */
  readonly lenient: boolean;
  readonly problems: ProposalProblem[];
  readonly ignored: ProposalProblem[];
}

export const proposalLimits = Object.freeze({
  maxUpdates: 1_000,
  maxArguments: 1_000,
  maxNameLength: 256,
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function short(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

interface ArgumentLayout {
  readonly paths: readonly (readonly string[])[];
  readonly roots: ReadonlySet<string>;
}

const layouts = new WeakMap<CompiledPredicate, ArgumentLayout>();

/** Where each variable's value sits in an arguments object (nested objects flatten to `a_b`). */
function layoutOf(predicate: CompiledPredicate): ArgumentLayout {
  let layout = layouts.get(predicate);
  if (!layout) {
    const paths = predicate.variables.map((variable) => variable.sourcePath ?? [variable.name]);
    // A renamed or flattened variable is also accepted under its own name (`address_city`,
    // `_3d_enabled`): that is the name the spec, the feedback and the agent's prompt use.
    const roots = new Set([
      ...paths.map((path) => path[0] ?? ''),
      ...predicate.variables.map((variable) => variable.name),
    ]);
    layout = { paths, roots };
    layouts.set(predicate, layout);
  }
  return layout;
}

function readPath(record: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = record;
  for (const segment of path) {
    if (!isRecord(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

/**
 * Reads an object of variable values for a predicate. Returns index/value pairs;
 * `null` clears a variable (only meaningful for updates).
 */
function readValues(
  predicate: CompiledPredicate,
  record: Record<string, unknown>,
  context: ReadContext,
  allowClear: boolean,
  assign: (index: number, value: Value | undefined) => void,
): void {
  const layout = layoutOf(predicate);
  let count = 0;
  for (const key in record) if (Object.hasOwn(record, key)) count++;
  if (count > proposalLimits.maxArguments) {
    context.problems.push({
      message: `${predicate.name} is given ${count} values; at most ${proposalLimits.maxArguments} are read`,
      predicate: predicate.name,
    });
    return;
  }
  for (const key in record) {
    if (!Object.hasOwn(record, key) || layout.roots.has(key)) continue;
    const problem = {
      message: `${predicate.name} has no variable '${key}'`,
      predicate: predicate.name,
      variable: key,
    };
    if (context.lenient) context.ignored.push(problem);
    else context.problems.push(problem);
  }
  const { paths } = layout;
  for (let index = 0; index < paths.length; index++) {
    const variable = predicate.variables[index];
    const path = paths[index];
    if (!variable || !path) continue;
    const raw =
      readPath(record, path) ??
      (Object.hasOwn(record, variable.name) ? record[variable.name] : undefined);
    if (raw === undefined) continue;
    if (raw === null) {
      if (allowClear) assign(index, undefined);
      continue;
    }
    const parsed = parseValue(raw, variable.type, context.clock);
    if (parsed.ok) assign(index, parsed.value);
    else {
      context.problems.push({
        message: `${predicate.name}.${variable.name}: ${parsed.problem}`,
        predicate: predicate.name,
        variable: variable.name,
        actual: short(raw),
      });
    }
  }
}

const observedIndexes = new WeakMap<CompiledPredicate, readonly number[]>();

/** The variables marked observed, found once per predicate. */
function observedVariablesOf(predicate: CompiledPredicate): readonly number[] {
  let indexes = observedIndexes.get(predicate);
  if (!indexes) {
    indexes = predicate.variables.flatMap((variable, index) =>
      variable.observed === true ? [index] : [],
    );
    observedIndexes.set(predicate, indexes);
  }
  return indexes;
}

/**
 * Observed facts (FORMATS.md §1) are what the app reports — availability, a balance, a
 * result screen. A proposal that set, cleared or deleted one would let the agent claim
 * its own preconditions, so it is refused, naming each observed fact it touches.
 */
function proposesObserved(
  predicate: CompiledPredicate,
  operation: unknown,
  record: Record<string, unknown>,
  context: ReadContext,
): boolean {
  if (predicate.declaration.observed === true) {
    context.problems.push({
      message: `${predicate.name} is observed: the app reports it; it cannot be proposed`,
      predicate: predicate.name,
    });
    return true;
  }
  const indexes = observedVariablesOf(predicate);
  if (indexes.length === 0) return false;
  if (operation === 'delete') {
    const names = indexes.map((index) => predicate.variables[index]?.name).join(', ');
    context.problems.push({
      message: `${predicate.name} has observed variables (${names}): the app reports when an instance goes away; it cannot be deleted by a proposal`,
      predicate: predicate.name,
    });
    return true;
  }
  const { paths } = layoutOf(predicate);
  let touched = false;
  for (const index of indexes) {
    const variable = predicate.variables[index];
    const path = paths[index];
    if (!variable || !path) continue;
    // `null` clears a value: that too is a claim about what the app reports.
    if (readPath(record, path) === undefined && !Object.hasOwn(record, variable.name)) continue;
    context.problems.push({
      message: `${predicate.name}.${variable.name} is observed: the app reports it; it cannot be proposed`,
      predicate: predicate.name,
      variable: variable.name,
    });
    touched = true;
  }
  return touched;
}

export function lookupPredicate(spec: CompiledSpec, name: string): CompiledPredicate | undefined {
  return spec.predicates.get(name) ?? spec.predicatesBySourceName.get(name);
}

function instanceKey(
  predicate: CompiledPredicate,
  values: (index: number) => Value | undefined,
): string | undefined {
  if (predicate.keyIndexes.length === 0) return singleKey;
  const parts: string[] = [];
  for (const index of predicate.keyIndexes) {
    const value = values(index);
    if (value === undefined) return undefined;
    parts.push(valueKey(value));
  }
  return parts.join('\u0000');
}

function readUpdate(
  predicateName: string,
  operation: unknown,
  body: unknown,
  context: ReadContext,
  pending: Map<string, boolean>,
): StateUpdate | undefined {
  const predicate = lookupPredicate(context.spec, predicateName);
  if (!predicate) {
    const problem = {
      message: `unknown predicate '${short(predicateName)}'`,
      predicate: predicateName,
    };
    if (context.lenient) context.ignored.push(problem);
    else context.problems.push(problem);
    return undefined;
  }
  if (predicate.declaration.kind === 'action') {
    context.problems.push({
      message: `${predicate.name} is an action; propose it as "action", not as a state update`,
      predicate: predicate.name,
    });
    return undefined;
  }
  // A tool's result is what the tool returned: only an observation may report it. An
  // agent that proposed it could forge the precondition of its next step.
  const producer = predicate.declaration.resultOf;
  if (producer !== undefined && !context.lenient) {
    context.problems.push({
      message: `${predicate.name} holds the result of ${producer}; it is observed after ${producer} runs, never proposed`,
      predicate: predicate.name,
    });
    return undefined;
  }
  if (
    operation !== undefined &&
    operation !== 'add' &&
    operation !== 'update' &&
    operation !== 'delete'
  ) {
    context.problems.push({
      message: `unknown update operation '${short(operation)}' (use add, update or delete)`,
      predicate: predicate.name,
    });
    return undefined;
  }
  const record = body === undefined && operation === 'delete' ? {} : body;
  if (!isRecord(record)) {
    context.problems.push({
      message: `the values for ${predicate.name} must be an object`,
      predicate: predicate.name,
      actual: short(body),
    });
    return undefined;
  }
  if (!context.lenient && proposesObserved(predicate, operation, record, context)) return undefined;
  const before = context.problems.length;
  const assignments: [number, Value | undefined][] = [];
  readValues(predicate, record, context, true, (index, value) => {
    assignments.push([index, value]);
  });
  if (context.problems.length > before) return undefined;
  const assigned = new Map(assignments);
  const key = instanceKey(predicate, (index) => assigned.get(index));
  if (key === undefined) {
    const names = predicate.keyIndexes.map((index) => predicate.variables[index]?.name).join(', ');
    context.problems.push({
      message: `${predicate.name} holds several instances; give its key (${names})`,
      predicate: predicate.name,
    });
    return undefined;
  }
  const pendingKey = `${predicate.index}\u0000${key}`;
  const exists = pending.get(pendingKey) ?? context.view.instance(predicate, key) !== undefined;
  if (
    (operation === 'update' || operation === 'delete') &&
    !exists &&
    predicate.keyIndexes.length > 0
  ) {
    context.problems.push({
      message: `${predicate.name} has no instance with that key to ${operation}`,
      predicate: predicate.name,
    });
    return undefined;
  }
  pending.set(pendingKey, operation !== 'delete');
  if (operation === 'delete') return { predicate, operation: 'delete', key, assignments: [] };
  // A tool result replaces the previous one: fields it does not report are cleared.
  const replace = predicate.declaration.resultOf !== undefined;
  const full: [number, Value | undefined][] = replace
    ? predicate.variables.map((_, index) => [index, assigned.get(index)])
    : assignments;
  return { predicate, operation: 'set', key, assignments: full };
}

const noUpdates: readonly StateUpdate[] = Object.freeze([]);
const nothingIgnored: ProposalProblem[] = Object.freeze([]) as unknown as ProposalProblem[];

function readUpdates(input: unknown, context: ReadContext): readonly StateUpdate[] {
  // Most proposals carry no updates: allocate nothing for them.
  if (input === undefined || input === null) return noUpdates;
  const updates: StateUpdate[] = [];
  const pending = new Map<string, boolean>();
  const add = (update: StateUpdate | undefined) => {
    if (update) updates.push(update);
  };
  if (Array.isArray(input)) {
    if (input.length > proposalLimits.maxUpdates) {
      context.problems.push({
        message: `${input.length} updates are more than the ${proposalLimits.maxUpdates} accepted`,
      });
      return updates;
    }
    for (const entry of input) {
      if (!isRecord(entry) || typeof entry.predicate !== 'string') {
        context.problems.push({
          message: 'each update must be an object with "predicate", "op" and "values"',
          actual: short(entry),
        });
        continue;
      }
      add(readUpdate(entry.predicate, entry.op, entry.values, context, pending));
    }
    return updates;
  }
  if (!isRecord(input)) {
    context.problems.push({
      message: '"updates" must be an object keyed by predicate, or an array',
      actual: short(input),
    });
    return updates;
  }
  const entries = Object.entries(input);
  if (entries.length > proposalLimits.maxUpdates) {
    context.problems.push({
      message: `${entries.length} updates are more than the ${proposalLimits.maxUpdates} accepted`,
    });
    return updates;
  }
  for (const [name, body] of entries) {
    // A keyed predicate may be given a list of instances.
    if (Array.isArray(body))
      for (const item of body) add(readUpdate(name, undefined, item, context, pending));
    else add(readUpdate(name, undefined, body, context, pending));
  }
  return updates;
}

function readAction(input: unknown, context: ReadContext): ProposedAction | undefined {
  if (!isRecord(input) || typeof input.name !== 'string') {
    context.problems.push({
      message: '"action" must be an object with a "name" and optional "args"',
      actual: short(input),
    });
    return undefined;
  }
  const predicate = lookupPredicate(context.spec, input.name);
  if (!predicate) {
    context.problems.push({
      message: `unknown action '${short(input.name)}'`,
      predicate: input.name,
    });
    return undefined;
  }
  if (predicate.declaration.kind !== 'action') {
    context.problems.push({
      message: `${predicate.name} is a state, not an action; propose its values as "updates"`,
      predicate: predicate.name,
    });
    return undefined;
  }
  const args = input.args ?? input.arguments ?? {};
  if (!isRecord(args)) {
    context.problems.push({
      message: `the arguments of ${predicate.name} must be an object`,
      predicate: predicate.name,
      actual: short(args),
    });
    return undefined;
  }
  const values: (Value | undefined)[] = new Array(predicate.variables.length).fill(undefined);
  readValues(predicate, args, context, false, (index, value) => {
    values[index] = value;
  });
  return { predicate, values: values as Instance };
}

/** Reads an agent's proposal. */
export function readProposal(
  input: unknown,
  spec: CompiledSpec,
  clock: SessionClock,
  view: StateView,
): ReadResult<NormalizedProposal> {
  // A proposal is strict: nothing is ever ignored, so it shares one empty list.
  const context: ReadContext = {
    spec,
    clock,
    view,
    lenient: false,
    problems: [],
    ignored: nothingIgnored,
  };
  if (!isRecord(input)) {
    return {
      ok: false,
      problems: [{ message: 'a proposal must be a JSON object', actual: short(input) }],
    };
  }
  const action =
    input.action === undefined || input.action === null
      ? undefined
      : readAction(input.action, context);
  const updates = readUpdates(input.updates, context);
  let objective: string | undefined;
  if (input.objective !== undefined && input.objective !== null) {
    if (typeof input.objective !== 'string') {
      context.problems.push({
        message: '"objective" must be a string',
        actual: short(input.objective),
      });
    } else if (input.objective.toLowerCase() === 'done') {
      context.problems.push({
        message: 'Done is not performed; propose {"finish": true} when the task is complete',
      });
    } else if (!spec.rulesByHead.has(input.objective)) {
      const known = [...spec.rulesByHead.keys()];
      context.problems.push({
        message: `no rule produces the objective '${short(input.objective)}'${known.length > 0 && known.length <= 20 ? ` (objectives: ${known.join(', ')})` : ''}`,
        actual: input.objective,
      });
    } else objective = input.objective;
  }
  if (input.finish !== undefined && typeof input.finish !== 'boolean') {
    context.problems.push({
      message: '"finish" must be true or false',
      actual: short(input.finish),
    });
  }
  const finish = input.finish === true;
  if (finish && (action !== undefined || updates.length > 0 || objective !== undefined)) {
    context.problems.push({
      message: 'a finishing proposal carries nothing else; propose the last step first',
    });
  }
  if (context.problems.length > 0) return { ok: false, problems: context.problems };
  const label = typeof input.label === 'string' ? input.label : undefined;
  return {
    ok: true,
    value: { action, updates, objective, finish, label },
    ignored: context.ignored,
  };
}

/** Reads an observation `{ "updates": … }`; fields the schema does not know are ignored and listed. */
export function readObservation(
  input: unknown,
  spec: CompiledSpec,
  clock: SessionClock,
  view: StateView,
): ReadResult<readonly StateUpdate[]> {
  const context: ReadContext = { spec, clock, view, lenient: true, problems: [], ignored: [] };
  if (!isRecord(input)) {
    return {
      ok: false,
      problems: [
        { message: 'an observation must be a JSON object with "updates"', actual: short(input) },
      ],
    };
  }
  const updates = readUpdates(input.updates, context);
  if (context.problems.length > 0) return { ok: false, problems: context.problems };
  return { ok: true, value: updates, ignored: context.ignored };
}

/** A canonical text of a proposal: equal for identical proposals (labels ignored). */
export function proposalFingerprint(proposal: NormalizedProposal): string {
  const parts: string[] = [];
  if (proposal.finish) parts.push('finish');
  if (proposal.objective !== undefined) parts.push(`objective:${proposal.objective}`);
  if (proposal.action) {
    parts.push(
      `action:${proposal.action.predicate.name}(${proposal.action.values.map(valueKey).join('\u0001')})`,
    );
  }
  for (const update of proposal.updates) {
    const assignments = update.assignments
      .map(([index, value]) => `${index}=${valueKey(value)}`)
      .join('\u0001');
    parts.push(`update:${update.predicate.name}/${update.operation}/${update.key}/${assignments}`);
  }
  return parts.join('\u0002');
}
