import { callName, defaultLimits, didYouMean, type Limits } from '../language/index.js';
import { errorMessage } from '../support/error-message.js';
import { isRecord } from '../support/is-record.js';
import type { SessionClock } from './clock.js';
import type { CompiledPredicate, CompiledSpec } from './compiled-spec.js';
import { requirePart } from './engine-parts.js';
import { PlainAction, type ProposedAction } from './evaluation.js';
import { preview } from './plain-data.js';
import { type Instance, type StateUpdate, type StateView, singleKey } from './state.js';
import {
  absentList,
  cutText,
  isTextValue,
  parseValue,
  readCommonValue,
  type Value,
  type ValueOptions,
  valueKey,
} from './values.js';

/**
 * Reading proposals and observations (FORMATS.md §2). They come from agents and
 * tools, so nothing is trusted: every unknown name or ill-typed value becomes a
 * problem that is spelled out, and nothing is applied unless everything reads.
 * A proposal is strict — a field the engine would not read, or a value it could read
 * two ways, is a problem, because the host or the tool may read it the other way.
 */
export const proposalProblemCodes = [
  /** The proposal, an update, its values, `action` or its arguments is not a JSON object. */
  'not-an-object',
  /** `objective`, `label`, `answer` or `ask` is not a string, or `finish` not a boolean. */
  'wrong-type',
  /** A field the reader does not know, or a variable the predicate does not have. */
  'unknown-field',
  /** An update of a predicate the spec does not declare. */
  'unknown-predicate',
  /** An action the spec does not declare. */
  'unknown-action',
  /** An update operation other than add, update or delete. */
  'unknown-operation',
  /** An objective no rule produces. */
  'unknown-objective',
  /** An action that declares an objective it does not perform. */
  'objective-not-performed',
  /** An update or delete of an instance the state does not hold. */
  'unknown-instance',
  /** An action proposed as a state update, or a state proposed as an action. */
  'wrong-kind',
  /** What only an observation may report: observed state, a tool's result, Done. */
  'not-proposable',
  /** A value given twice (`args` and `arguments`, a variable and its path). */
  'given-twice',
  /** A required argument missing or null. */
  'missing-value',
  /** A value the variable's type does not read. */
  'invalid-value',
  /** An update of a predicate with several instances that does not give its key. */
  'missing-key',
  /** Beyond a limit: values, updates, instances (`limit`), label length, observed text (`limit`). */
  'too-large',
  /** Fields that do not go together (`finish` with an action, `answer` without `finish`, `ask` with anything). */
  'conflicting-fields',
  /** Reading the input failed (a getter of the host's object threw). */
  'unreadable',
  /** The engine failed while reading or keeping an observation (a bug); nothing was kept. */
  'internal-error',
  /** (guard) A result of a call that was not allowed to run. */
  'call-not-run',
] as const;

export type ProposalProblemCode = (typeof proposalProblemCodes)[number];

/** Why a proposal or an observation cannot be read (or what an observation's reader ignored). */
export interface ProposalProblem {
  readonly code: ProposalProblemCode;
  readonly message: string;
  readonly predicate?: string;
  readonly variable?: string;
  readonly actual?: string;
  /** The limit the input went beyond, when that is the problem. */
  readonly limit?: 'maxInstances' | 'maxObservedText';
}

export interface NormalizedProposal {
  readonly action: ProposedAction | undefined;
  readonly updates: readonly StateUpdate[];
  readonly objective: string | undefined;
  readonly finish: boolean;
  /** v2: the agent's final answer, with `finish` (FORMATS.md §2). */
  readonly answer?: string | undefined;
  /** v2: a question to the user; the proposal carries nothing else (LANGUAGE.md §7). */
  readonly ask?: string | undefined;
  readonly label: string | undefined;
}

export type ReadResult<T> =
  | { readonly ok: true; readonly value: T; readonly ignored: readonly ProposalProblem[] }
  | { readonly ok: false; readonly problems: readonly ProposalProblem[] };

export interface ReadContext {
  readonly spec: CompiledSpec;
  readonly clock: SessionClock;
  readonly view: StateView;
  /** Observations ignore fields the schema does not know (tools return more than they declare). */
  readonly lenient: boolean;
  readonly limits: Limits;
  /** How values are read: `maxValueLength` for proposals, `maxObservedValueLength` for observations. */
  readonly values: ReadOptions;
  readonly problems: ProposalProblem[];
  readonly ignored: ProposalProblem[];
}

/** A name or value the agent wrote, quoted in a problem. */
function quote(value: unknown, context: ReadContext): string {
  return preview(value, context.limits.maxEchoLength);
}

function report(context: ReadContext, problem: ProposalProblem, lenient = context.lenient): void {
  if (lenient) context.ignored.push(problem);
  else context.problems.push(problem);
}

/** `Did you mean 'x'?` as a clause that fits inside a problem's sentence. */
function suggestion(hint: string): string {
  return hint === '' ? '' : ` (${hint.charAt(0).toLowerCase()}${hint.slice(1)})`;
}

/** The fields of an object the reader does not know, reported (or, when lenient, listed). */
function checkFields(
  record: Record<string, unknown>,
  known: ReadonlySet<string>,
  where: string,
  context: ReadContext,
): void {
  for (const key in record) {
    if (known.has(key) || !Object.hasOwn(record, key)) continue;
    const hint = didYouMean(cutText(key, 64), known);
    report(context, {
      code: 'unknown-field',
      message: `${where} has no field '${cutText(key, context.limits.maxEchoLength)}' (it takes ${[...known].join(', ')})${suggestion(hint)}`,
    });
  }
}

/** The fields of an argument object, as a tree: nested objects flatten to `a_b` variables. */
interface FieldNode {
  /** A variable's whole value sits here. */
  leaf: boolean;
  readonly children: Map<string, FieldNode>;
}

export interface ArgumentLayout {
  readonly paths: readonly (readonly string[])[];
  readonly roots: ReadonlySet<string>;
  readonly tree: ReadonlyMap<string, FieldNode>;
  /** Variables also accepted under their own (flattened or rewritten) name. */
  readonly aliases: ReadonlySet<string>;
  /** Per variable, whether its name is such an alias (read for every argument, so precomputed). */
  readonly aliased: readonly boolean[];
  /**
   * When every variable sits at the top level of the arguments object: its index by field
   * name, for reading arguments in one pass (`readFlatArguments`); undefined otherwise.
   */
  readonly topLevel: ReadonlyMap<string, number> | undefined;
  /** An instance with no value given, copied for each action (a packed array, fast to read). */
  readonly empty: Instance;
}

/** Where each variable's value sits in an arguments object (nested objects flatten to `a_b`). */
function layoutOf(predicate: CompiledPredicate): ArgumentLayout {
  let layout = predicate.layout;
  if (!layout) {
    const paths = predicate.variables.map((variable) => variable.sourcePath ?? [variable.name]);
    const tree = new Map<string, FieldNode>();
    for (const path of paths) {
      let level = tree;
      path.forEach((segment, index) => {
        let node = level.get(segment);
        if (!node) {
          node = { leaf: false, children: new Map() };
          level.set(segment, node);
        }
        if (index === path.length - 1) node.leaf = true;
        level = node.children;
      });
    }
    // A renamed or flattened variable is also accepted under its own name (`address_city`,
    // `_3d_enabled`): that is the name the spec, the feedback and the agent's prompt use.
    // (A name that is also a field of the arguments object is that field, not an alias.)
    const aliases = new Set(
      predicate.variables.map((variable) => variable.name).filter((name) => !tree.has(name)),
    );
    const roots = new Set([...tree.keys(), ...aliases]);
    const aliased = predicate.variables.map((variable) => aliases.has(variable.name));
    const fields = new Map(paths.map((path, index) => [path[0]!, index]));
    const topLevel =
      paths.every((path) => path.length === 1) && fields.size === paths.length ? fields : undefined;
    layout = { paths, roots, tree, aliases, aliased, topLevel, empty: emptyInstance(paths.length) };
    predicate.layout = layout;
  }
  return layout;
}

/** `length` unobserved values, as a packed array (`new Array(n).fill()` stays holey, slower to read). */
function emptyInstance(length: number): Instance {
  const values: (Value | undefined)[] = [];
  for (let index = 0; index < length; index++) values.push(undefined);
  return values;
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
 * Unknown fields, also inside nested objects (`{"address": {"city": …, "bogus": 1}}`),
 * and nested objects of the wrong type (`{"address": "Paris"}` where the tool takes an
 * object): a field the engine does not read is one the tool may act on.
 */
function checkArgumentFields(
  predicate: CompiledPredicate,
  layout: ArgumentLayout,
  record: Record<string, unknown>,
  level: ReadonlyMap<string, FieldNode>,
  prefix: string,
  context: ReadContext,
): void {
  for (const key in record) {
    const node = level.get(key);
    // The common case first: a known field holding a variable's whole value.
    if (node?.leaf === true) continue;
    if (!Object.hasOwn(record, key)) continue;
    const name = `${prefix}${cutText(key, context.limits.maxEchoLength)}`;
    if (!node) {
      if (prefix === '' && layout.aliases.has(key)) continue;
      const hint = prefix === '' ? didYouMean(cutText(key, 64), layout.roots) : '';
      report(context, {
        code: 'unknown-field',
        message: `${callName(predicate.declaration)} has no variable '${name}'${suggestion(hint)}`,
        predicate: predicate.name,
        variable: name,
      });
      continue;
    }
    const value = record[key];
    if (value === undefined || value === null) continue;
    if (!isRecord(value)) {
      context.problems.push({
        code: 'not-an-object',
        message: `${callName(predicate.declaration)}.${name} must be an object (with ${[...node.children.keys()].join(', ')})`,
        predicate: predicate.name,
        variable: name,
        actual: quote(value, context),
      });
      continue;
    }
    checkArgumentFields(predicate, layout, value, node.children, `${name}.`, context);
  }
}

/**
 * Reads an object of variable values for a predicate. Returns index/value pairs;
 * for updates (`clear`), `null` clears a variable. For an action, `null` means not
 * given; a required argument must be given, and an optional list that is not given
 * is the empty list (LANGUAGE.md §5.1): the shared `absentList`, which `absent(arg)`
 * tells from a given `[]`.
 */
function readValues(
  predicate: CompiledPredicate,
  record: Record<string, unknown>,
  context: ReadContext,
  clear: boolean,
  assign: (index: number, value: Value | undefined) => void,
  unreadable?: (index: number) => void,
): void {
  const layout = layoutOf(predicate);
  const { maxArguments } = context.limits;
  let count = 0;
  for (const key in record) if (Object.hasOwn(record, key)) count++;
  const tooMany = count > maxArguments;
  if (tooMany) {
    context.problems.push({
      code: 'too-large',
      message: `${callName(predicate.declaration)} is given ${count} values; at most ${maxArguments} are read`,
      predicate: predicate.name,
    });
    // A tool's result is still keyed by its call: its keys are read, the rest is not.
    if (unreadable === undefined) return;
  } else checkArgumentFields(predicate, layout, record, layout.tree, '', context);
  const { paths } = layout;
  for (let index = 0; index < paths.length; index++) {
    const variable = predicate.variables[index];
    const path = paths[index];
    if (!variable || !path) continue;
    if (tooMany && !predicate.keyIndexes.includes(index)) {
      unreadable?.(index);
      continue;
    }
    const nested = readPath(record, path);
    const flat =
      layout.aliased[index] === true && Object.hasOwn(record, variable.name)
        ? record[variable.name]
        : undefined;
    if (nested !== undefined && flat !== undefined) {
      context.problems.push({
        code: 'given-twice',
        message: `${callName(predicate.declaration)}.${variable.name} is given twice, as '${path.join('.')}' and as '${variable.name}'; give it once`,
        predicate: predicate.name,
        variable: variable.name,
      });
      unreadable?.(index);
      continue;
    }
    const raw = nested !== undefined ? nested : flat;
    if (raw === undefined || raw === null) {
      if (clear) {
        if (raw === null) assign(index, undefined);
      } else if (variable.required === true) {
        context.problems.push({
          code: 'missing-value',
          message: `${callName(predicate.declaration)}.${variable.name} is required; it is ${raw === null ? 'null' : 'missing'}`,
          predicate: predicate.name,
          variable: variable.name,
        });
      } else if (variable.type.kind === 'list') assign(index, absentList);
      continue;
    }
    const options = variable.jsonText === true ? context.values.json : context.values.plain;
    const parsed = parseValue(raw, variable.type, context.clock, options);
    // A record argument must fit its declared fields (LANGUAGE.md §7); results are read lazily.
    const shape =
      parsed.ok && variable.record !== undefined && !context.lenient
        ? requirePart(context.spec.parts, 'paths').recordArgumentProblem(
            raw,
            variable,
            context.clock,
          )
        : undefined;
    if (shape !== undefined) {
      context.problems.push({
        code: 'invalid-value',
        message: `${callName(predicate.declaration)}.${shape}`,
        predicate: predicate.name,
        variable: variable.name,
        actual: quote(raw, context),
      });
      unreadable?.(index);
    } else if (parsed.ok) assign(index, parsed.value);
    else {
      // A string refused for its length is not quoted: reading any part of a host's
      // concatenated string would copy all of it, and its length says enough.
      const tooLong = typeof raw === 'string' && raw.length > (options.maxLength ?? 0);
      context.problems.push({
        code: 'invalid-value',
        message: `${callName(predicate.declaration)}.${variable.name}: ${parsed.problem}`,
        predicate: predicate.name,
        variable: variable.name,
        ...(tooLong ? {} : { actual: quote(raw, context) }),
      });
      unreadable?.(index);
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
      code: 'not-proposable',
      message: `${callName(predicate.declaration)} is observed: the app reports it; it cannot be proposed`,
      predicate: predicate.name,
    });
    return true;
  }
  const indexes = observedVariablesOf(predicate);
  if (indexes.length === 0) return false;
  if (operation === 'delete') {
    const names = indexes.map((index) => predicate.variables[index]?.name).join(', ');
    context.problems.push({
      code: 'not-proposable',
      message: `${callName(predicate.declaration)} has observed variables (${names}): the app reports when an instance goes away; it cannot be deleted by a proposal`,
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
      code: 'not-proposable',
      message: `${callName(predicate.declaration)}.${variable.name} is observed: the app reports it; it cannot be proposed`,
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

/**
 * The key of an instance. A tool's result is keyed by its call's arguments exactly as
 * they were given (E3): keys identify calls, they are not text to compare, so `/Reports`,
 * `/re\u200bports` or `"/reports "` is another call than `/reports`, and its result never
 * replaces that one. A result observed without its arguments (a raw trace, an app's own
 * report) is keyed by "not given", so it replaces the previous such result as before
 * results had keys.
 */
export function instanceKey(
  predicate: CompiledPredicate,
  values: (index: number) => Value | undefined,
): string | undefined {
  if (predicate.keyIndexes.length === 0) return singleKey;
  const resultOfCall = predicate.declaration.resultOf !== undefined;
  const parts: string[] = [];
  for (const index of predicate.keyIndexes) {
    const value = values(index);
    if (value === undefined && !resultOfCall) return undefined;
    parts.push(resultOfCall ? callKey(value) : valueKey(value));
  }
  return parts.join('\u0000');
}

/** An argument as the call gave it: text by its exact characters, not its normalized key. */
function callKey(value: Value | undefined): string {
  if (isTextValue(value)) return `r:${value.raw}`;
  if (Array.isArray(value)) return `[${value.map((item) => callKey(item)).join('\u0001')}]`;
  return valueKey(value);
}

/**
 * The key of a result whose call's arguments could not be read either: a key of its own,
 * so that it never replaces another result (nor does the next such one replace it).
 */
function unreadKey(
  predicate: CompiledPredicate,
  view: StateView,
  pending: ReadonlyMap<string, boolean>,
): string {
  for (let n = 0; ; n++) {
    const key = `\u0001unread\u0001${n}`;
    if (
      !pending.has(`${predicate.index}\u0000${key}`) &&
      view.instance(predicate, key) === undefined
    )
      return key;
  }
}

/** Instances of the predicate the view holds plus the new ones this reading adds. */
function instancesAfter(
  predicate: CompiledPredicate,
  view: StateView,
  pending: ReadonlyMap<string, boolean>,
): number {
  let count = 0;
  view.someInstance(predicate, () => {
    count++;
    return false;
  });
  const prefix = `${predicate.index}\u0000`;
  for (const [key, kept] of pending) {
    if (!key.startsWith(prefix)) continue;
    const existed = view.instance(predicate, key.slice(prefix.length)) !== undefined;
    if (kept && !existed) count++;
    else if (!kept && existed) count--;
  }
  return count;
}

/**
 * The predicate an update names, when an update may name it: declared, a state, not a
 * tool's result (in a proposal), with a known operation. Undefined, with the problem, otherwise.
 */
function updatablePredicate(
  predicateName: string,
  operation: unknown,
  context: ReadContext,
): CompiledPredicate | undefined {
  const predicate = lookupPredicate(context.spec, predicateName);
  if (!predicate) {
    const problem: ProposalProblem = {
      code: 'unknown-predicate',
      message: `unknown predicate '${quote(predicateName, context)}'`,
      predicate: cutText(predicateName, context.limits.maxEchoLength),
    };
    if (context.lenient) context.ignored.push(problem);
    else context.problems.push(problem);
    return undefined;
  }
  if (predicate.declaration.kind === 'action') {
    context.problems.push({
      code: 'wrong-kind',
      message: `${callName(predicate.declaration)} is an action; propose it as "action", not as a state update`,
      predicate: predicate.name,
    });
    return undefined;
  }
  // What the user said (LANGUAGE.md §8) is the intent's `given` facts, fixed when the
  // session starts: neither the agent nor a tool's report may change it.
  if (predicate.declaration.source === 'user') {
    context.problems.push({
      code: 'not-proposable',
      message: `${predicate.name} holds what the user said in the instruction (the intent's given facts); nothing can propose or observe it`,
      predicate: predicate.name,
    });
    return undefined;
  }
  // A tool's result is what the tool returned: only an observation may report it. An
  // agent that proposed it could forge the precondition of its next step.
  const producer = predicate.declaration.resultOf;
  if (producer !== undefined && !context.lenient) {
    context.problems.push({
      code: 'not-proposable',
      message: `${callName(predicate.declaration)} holds the result of ${producer}; it is observed after ${producer} runs, never proposed`,
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
      code: 'unknown-operation',
      message: `unknown update operation '${quote(operation, context)}' (use add, update or delete)`,
      predicate: predicate.name,
    });
    return undefined;
  }
  return predicate;
}

function readUpdate(
  predicateName: string,
  operation: unknown,
  body: unknown,
  context: ReadContext,
  pending: Map<string, boolean>,
): StateUpdate | undefined {
  const predicate = updatablePredicate(predicateName, operation, context);
  if (!predicate) return undefined;
  const producer = predicate.declaration.resultOf;
  const record = body === undefined && operation === 'delete' ? {} : body;
  if (!isRecord(record)) {
    const problem: ProposalProblem = {
      code: 'not-an-object',
      message: `the values for ${callName(predicate.declaration)} must be an object`,
      predicate: predicate.name,
      actual: quote(body, context),
    };
    context.problems.push(problem);
    // A result that came in a shape nothing reads is still a result (E1), of a call unknown.
    if (!context.lenient || producer === undefined || operation === 'delete') return undefined;
    const key = unreadKey(predicate, context.view, pending);
    pending.set(`${predicate.index}\u0000${key}`, true);
    return unreadableResult(predicate, key, new Map(), problem);
  }
  if (!context.lenient && proposesObserved(predicate, operation, record, context)) return undefined;
  const before = context.problems.length;
  const assignments: [number, Value | undefined][] = [];
  // A tool's result that cannot be read whole is still a result that came (E1): it is
  // kept, keyed by its call, with its fields unread (see `unreadableResults`).
  const unread =
    context.lenient && predicate.declaration.resultOf !== undefined ? new Set<number>() : undefined;
  readValues(
    predicate,
    record,
    context,
    true,
    (index, value) => {
      assignments.push([index, value]);
    },
    unread && ((index) => unread.add(index)),
  );
  const failed = context.problems.length > before;
  if (failed && unread === undefined) return undefined;
  const assigned = new Map(assignments);
  const key =
    failed && predicate.keyIndexes.some((index) => unread?.has(index))
      ? unreadKey(predicate, context.view, pending)
      : instanceKey(predicate, (index) => assigned.get(index));
  if (key === undefined) {
    const names = predicate.keyIndexes.map((index) => predicate.variables[index]?.name).join(', ');
    context.problems.push({
      code: 'missing-key',
      message: `${callName(predicate.declaration)} holds several instances; give its key (${names})`,
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
      code: 'unknown-instance',
      message: `${callName(predicate.declaration)} has no instance with that key to ${operation}`,
      predicate: predicate.name,
    });
    return undefined;
  }
  if (
    operation !== 'delete' &&
    !exists &&
    predicate.keyIndexes.length > 0 &&
    instancesAfter(predicate, context.view, pending) >= context.limits.maxInstances
  ) {
    context.problems.push({
      code: 'too-large',
      message: `${callName(predicate.declaration)} already holds ${context.limits.maxInstances} instances, as many as a session keeps (maxInstances)`,
      predicate: predicate.name,
      limit: 'maxInstances',
    });
    return undefined;
  }
  pending.set(pendingKey, operation !== 'delete');
  if (operation === 'delete') return { predicate, operation: 'delete', key, assignments: [] };
  if (failed) return unreadableResult(predicate, key, assigned, context.problems[before]);
  // A tool result replaces the previous one: fields it does not report are cleared.
  const replace = predicate.declaration.resultOf !== undefined;
  const full: [number, Value | undefined][] = replace
    ? predicate.variables.map((_, index) => [index, assigned.get(index)])
    : assignments;
  return { predicate, operation: 'set', key, assignments: full };
}

/**
 * A tool's result that came but cannot be read whole (E1: a list over the limit, nesting
 * too deep, a text too long, a value of the wrong type): its call's arguments and nothing
 * else. Every result field is unread — a rule that needs one does not fire, and inside
 * `not` the result counts as matching — and `unreadable` says why, for feedback.
 */
function unreadableResult(
  predicate: CompiledPredicate,
  key: string,
  values: ReadonlyMap<number, Value | undefined>,
  problem: ProposalProblem | undefined,
): StateUpdate {
  return {
    predicate,
    operation: 'set',
    key,
    assignments: predicate.variables.map((_, index) => [
      index,
      predicate.keyIndexes.includes(index) ? values.get(index) : undefined,
    ]),
    unreadable: problem?.message ?? 'it could not be read',
  };
}

const noUpdates: readonly StateUpdate[] = Object.freeze([]);
const nothingIgnored: ProposalProblem[] = Object.freeze([]) as unknown as ProposalProblem[];
const updateFields: ReadonlySet<string> = new Set(['predicate', 'op', 'values']);

function readUpdates(input: unknown, context: ReadContext): readonly StateUpdate[] {
  // Most proposals carry no updates: allocate nothing for them — not even the scope of
  // the closure below, which a function makes on entry, so it is another function's.
  if (input === undefined || input === null) return noUpdates;
  return readGivenUpdates(input, context);
}

function readGivenUpdates(input: unknown, context: ReadContext): readonly StateUpdate[] {
  const updates: StateUpdate[] = [];
  const pending = new Map<string, boolean>();
  const add = (update: StateUpdate | undefined) => {
    if (update) updates.push(update);
  };
  const { maxUpdates } = context.limits;
  if (Array.isArray(input)) {
    if (input.length > maxUpdates) {
      context.problems.push({
        code: 'too-large',
        message: `${input.length} updates are more than the ${maxUpdates} accepted`,
      });
      return updates;
    }
    for (const entry of input) {
      if (!isRecord(entry) || typeof entry.predicate !== 'string') {
        context.problems.push({
          code: 'not-an-object',
          message: 'each update must be an object with "predicate", "op" and "values"',
          actual: quote(entry, context),
        });
        continue;
      }
      checkFields(entry, updateFields, 'an update', context);
      add(readUpdate(entry.predicate, entry.op, entry.values, context, pending));
    }
    return updates;
  }
  if (!isRecord(input)) {
    context.problems.push({
      code: 'not-an-object',
      message: '"updates" must be an object keyed by predicate, or an array',
      actual: quote(input, context),
    });
    return updates;
  }
  const entries = Object.entries(input);
  if (entries.length > maxUpdates) {
    context.problems.push({
      code: 'too-large',
      message: `${entries.length} updates are more than the ${maxUpdates} accepted`,
    });
    return updates;
  }
  for (const [name, body] of entries) {
    // A keyed predicate may be given a list of instances.
    if (Array.isArray(body)) {
      if (body.length > maxUpdates) {
        context.problems.push({
          code: 'too-large',
          message: `${body.length} instances of ${cutText(name, context.limits.maxEchoLength)} are more than the ${maxUpdates} accepted`,
        });
        continue;
      }
      for (const item of body) add(readUpdate(name, undefined, item, context, pending));
    } else add(readUpdate(name, undefined, body, context, pending));
  }
  return updates;
}

const actionFields: ReadonlySet<string> = new Set(['name', 'args', 'arguments']);

function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function readAction(input: unknown, context: ReadContext): ProposedAction | undefined {
  if (!isRecord(input) || typeof input.name !== 'string') {
    context.problems.push({
      code: 'not-an-object',
      message: '"action" must be an object with a "name" and optional "args"',
      actual: quote(input, context),
    });
    return undefined;
  }
  checkFields(input, actionFields, '"action"', context);
  // Hosts differ in which spelling they pass on to the tool: one checked and the other
  // executed would let anything through.
  if (given(input.args) && given(input.arguments)) {
    context.problems.push({
      code: 'given-twice',
      message:
        'the action gives both "args" and "arguments"; give its arguments once, under one name',
    });
    return undefined;
  }
  const predicate = lookupPredicate(context.spec, input.name);
  if (!predicate) {
    context.problems.push({
      code: 'unknown-action',
      message: `unknown action '${quote(input.name, context)}'`,
      predicate: cutText(input.name, context.limits.maxEchoLength),
    });
    return undefined;
  }
  if (predicate.declaration.kind !== 'action') {
    context.problems.push({
      code: 'wrong-kind',
      message: `${callName(predicate.declaration)} is a state, not an action; propose its values as "updates"`,
      predicate: predicate.name,
    });
    return undefined;
  }
  const args = given(input.args) ? input.args : given(input.arguments) ? input.arguments : {};
  if (!isRecord(args)) {
    context.problems.push({
      code: 'not-an-object',
      message: `the arguments of ${callName(predicate.declaration)} must be an object`,
      predicate: predicate.name,
      actual: quote(args, context),
    });
    return undefined;
  }
  return new PlainAction(
    predicate,
    readFlatArguments(predicate, args, context) ?? readArguments(predicate, args, context),
  );
}

/** An action's arguments read by `readValues`, which names every problem. */
export function readArguments(
  predicate: CompiledPredicate,
  args: Record<string, unknown>,
  context: ReadContext,
): Instance {
  const values = layoutOf(predicate).empty.slice();
  readValues(predicate, args, context, false, (index, value) => {
    values[index] = value;
  });
  return values;
}

/**
 * The common case of `readArguments` in one pass over the arguments object: every field
 * is a top-level variable, given once, that reads without a problem. Anything else — an
 * unknown, nested or alias field, a missing required argument, a value that does not
 * read, a record argument, too many fields — answers undefined, reading nothing into
 * the context, and `readArguments` reads the arguments again to name the problems. When
 * it answers, it answers what `readArguments` would: the same fields are accepted, each
 * value is read by the same `parseValue`, and an optional argument not given (or `null`)
 * is left unobserved, or the absent list for a list.
 */
export function readFlatArguments(
  predicate: CompiledPredicate,
  args: Record<string, unknown>,
  context: ReadContext,
): Instance | undefined {
  const { topLevel, empty } = layoutOf(predicate);
  if (topLevel === undefined) return undefined;
  const { variables } = predicate;
  const { maxArguments } = context.limits;
  const values = empty.slice();
  let count = 0;
  for (const key in args) {
    // This form, not `Object.hasOwn`: inside a `for…in` V8 proves it from the loop's key
    // cache and drops it, where `Object.hasOwn` costs a call per key (about 100
    // instructions; a helper wrapping this form is not inlined in time to be dropped).
    // biome-ignore lint/suspicious/noPrototypeBuiltins: the form V8 drops in a for…in (above)
    if (!Object.prototype.hasOwnProperty.call(args, key)) continue;
    if (++count > maxArguments) return undefined;
    const index = topLevel.get(key);
    if (index === undefined) return undefined;
    const variable = variables[index]!;
    const raw = args[key];
    if (raw === undefined || raw === null) continue;
    if (variable.record !== undefined) return undefined;
    const options = variable.jsonText === true ? context.values.json : context.values.plain;
    const common = readCommonValue(raw, variable.type, options.maxLength ?? 0);
    if (common !== undefined) {
      values[index] = common;
      continue;
    }
    const parsed = parseValue(raw, variable.type, context.clock, options);
    if (!parsed.ok) return undefined;
    values[index] = parsed.value;
  }
  for (let index = 0; index < values.length; index++) {
    if (values[index] !== undefined) continue;
    const variable = variables[index]!;
    if (variable.required === true) return undefined;
    if (variable.type.kind === 'list') values[index] = absentList;
  }
  return values;
}

const proposalFields: ReadonlySet<string> = new Set([
  'action',
  'updates',
  'objective',
  'finish',
  'answer',
  'ask',
  'label',
]);
const observationFields: ReadonlySet<string> = new Set(['updates']);

/** Value options of one kind of input, with and without JSON text. */
interface ReadOptions {
  readonly plain: ValueOptions;
  readonly json: ValueOptions;
}

const readOptionsCache = new WeakMap<Limits, { proposal: ReadOptions; observation: ReadOptions }>();

/** Built once per limits object: reading runs for every proposal and must not allocate them. */
let lastLimits: Limits | undefined;
let lastOptions: { proposal: ReadOptions; observation: ReadOptions } | undefined;

function readOptions(limits: Limits): { proposal: ReadOptions; observation: ReadOptions } {
  if (limits === lastLimits && lastOptions) return lastOptions;
  let options = readOptionsCache.get(limits);
  if (!options) {
    const kind = (maxLength: number, foreignOffsets: 'refuse' | 'convert'): ReadOptions => {
      const plain = {
        maxLength,
        maxListLength: limits.maxListValueLength,
        maxDepth: limits.maxValueDepth,
        json: false,
        foreignOffsets,
      };
      return { plain, json: { ...plain, json: true } };
    };
    // An observation reports an instant (a tool's timestamp in UTC is a fact); a
    // proposal's argument is what the tool will read, so its offset must be the zone's.
    options = {
      proposal: kind(limits.maxValueLength, 'refuse'),
      observation: kind(limits.maxObservedValueLength, 'convert'),
    };
    readOptionsCache.set(limits, options);
  }
  lastLimits = limits;
  lastOptions = options;
  return options;
}

/**
 * Reading runs getters a host's object may have: one that throws makes the input
 * unreadable — the caller's invalid input, not an engine failure (`internal-error`).
 */
function unreadable(error: unknown, what: string): ReadResult<never> {
  const reason = cutText(errorMessage(error), 200);
  return {
    ok: false,
    problems: [
      { code: 'unreadable', message: `the ${what} cannot be read: reading it failed (${reason})` },
    ],
  };
}

/** What reading a proposal reads against and collects its problems in. */
export function proposalReadContext(
  spec: CompiledSpec,
  clock: SessionClock,
  view: StateView,
  limits: Limits,
): ReadContext {
  // A proposal is strict: nothing is ever ignored, so it shares one empty list.
  return {
    spec,
    clock,
    view,
    lenient: false,
    limits,
    values: readOptions(limits).proposal,
    problems: [],
    ignored: nothingIgnored,
  };
}

/**
 * Reads an agent's proposal. Strict (FORMATS.md §2): unknown fields, `args` and
 * `arguments` together, values of the wrong JSON type, missing or `null` required
 * arguments, and values beyond `limits` are problems.
 */
export function readProposal(
  input: unknown,
  spec: CompiledSpec,
  clock: SessionClock,
  view: StateView,
  limits: Limits = defaultLimits,
): ReadResult<NormalizedProposal> {
  if (!isRecord(input)) {
    return {
      ok: false,
      problems: [
        {
          code: 'not-an-object',
          message: 'a proposal must be a JSON object',
          actual: preview(input, limits.maxEchoLength),
        },
      ],
    };
  }
  const context = proposalReadContext(spec, clock, view, limits);
  try {
    return readProposalFields(input, context);
  } catch (error) {
    return unreadable(error, 'proposal');
  }
}

function readProposalFields(
  input: Record<string, unknown>,
  context: ReadContext,
): ReadResult<NormalizedProposal> {
  const { spec, limits } = context;
  checkFields(input, proposalFields, 'a proposal', context);
  const action = given(input.action) ? readAction(input.action, context) : undefined;
  const updates = readUpdates(input.updates, context);
  let objective: string | undefined;
  if (given(input.objective)) {
    if (typeof input.objective !== 'string') {
      context.problems.push({
        code: 'wrong-type',
        message: '"objective" must be a string',
        actual: quote(input.objective, context),
      });
    } else if (input.objective.toLowerCase() === 'done') {
      context.problems.push({
        code: 'not-proposable',
        message: 'Done is not performed; propose {"finish": true} when the task is complete',
      });
    } else if (!spec.rulesByHead.has(input.objective)) {
      const known = [...spec.rulesByHead.keys()];
      context.problems.push({
        code: 'unknown-objective',
        message: `no rule produces the objective '${quote(input.objective, context)}'${known.length > 0 && known.length <= 20 ? ` (objectives: ${known.join(', ')})` : ''}`,
        actual: quote(input.objective, context),
      });
    } else objective = input.objective;
  }
  if (input.finish !== undefined && typeof input.finish !== 'boolean') {
    context.problems.push({
      code: 'wrong-type',
      message: '"finish" must be true or false',
      actual: quote(input.finish, context),
    });
  }
  const finish = input.finish === true;
  if (finish && (action !== undefined || updates.length > 0 || objective !== undefined)) {
    context.problems.push({
      code: 'conflicting-fields',
      message: 'a finishing proposal carries nothing else; propose the last step first',
    });
  }
  const answer = readText(input.answer, 'answer', context);
  if (answer !== undefined && !finish) {
    context.problems.push({
      code: 'conflicting-fields',
      message: '"answer" goes with "finish": true (the final answer of a finished task)',
    });
  }
  const ask = readText(input.ask, 'ask', context);
  if (
    ask !== undefined &&
    (finish || action !== undefined || updates.length > 0 || objective !== undefined)
  ) {
    context.problems.push({
      code: 'conflicting-fields',
      message: 'a question to the user ("ask") carries nothing else; ask first, then act',
    });
  }
  let label: string | undefined;
  if (typeof input.label === 'string') {
    if (input.label.length > limits.maxValueLength) {
      context.problems.push({
        code: 'too-large',
        message: `"label" has ${input.label.length} characters; at most ${limits.maxValueLength} are accepted`,
      });
    } else label = input.label;
  } else if (given(input.label)) {
    context.problems.push({
      code: 'wrong-type',
      message: '"label" must be a string',
      actual: quote(input.label, context),
    });
  }
  if (context.problems.length > 0) return { ok: false, problems: context.problems };
  return {
    ok: true,
    value:
      answer === undefined && ask === undefined
        ? { action, updates, objective, finish, label }
        : {
            action,
            updates,
            objective,
            finish,
            label,
            ...(answer !== undefined ? { answer } : {}),
            ...(ask !== undefined ? { ask } : {}),
          },
    ignored: context.ignored,
  };
}

/**
 * An optional text field of a proposal (`answer`, `ask`), bounded like every value. Given
 * its value, read by name by the caller: a keyed read of a missing field walks the prototypes.
 */
function readText(
  value: unknown,
  field: 'answer' | 'ask',
  context: ReadContext,
): string | undefined {
  if (!given(value)) return undefined;
  if (typeof value !== 'string') {
    context.problems.push({
      code: 'wrong-type',
      message: `"${field}" must be a string`,
      actual: quote(value, context),
    });
    return undefined;
  }
  if (value.length > context.limits.maxValueLength) {
    context.problems.push({
      code: 'too-large',
      message: `"${field}" has ${value.length} characters; at most ${context.limits.maxValueLength} are accepted`,
    });
    return undefined;
  }
  return value;
}

/**
 * Reads an observation `{ "updates": … }`. Fields the schema does not know are
 * ignored and listed (tools return more than they declare); known fields of the
 * wrong type, and values beyond the limits, fail it — and then `kept` holds the tool
 * results it carried, as results that came and could not be read (E1).
 */
export function readObservation(
  input: unknown,
  spec: CompiledSpec,
  clock: SessionClock,
  view: StateView,
  limits: Limits = defaultLimits,
): ReadResult<readonly StateUpdate[]> & { readonly kept?: readonly StateUpdate[] } {
  if (!isRecord(input)) {
    return {
      ok: false,
      problems: [
        {
          code: 'not-an-object',
          message: 'an observation must be a JSON object with "updates"',
          actual: preview(input, limits.maxEchoLength),
        },
      ],
    };
  }
  const context: ReadContext = {
    spec,
    clock,
    view,
    lenient: true,
    limits,
    values: readOptions(limits).observation,
    problems: [],
    ignored: [],
  };
  try {
    checkFields(input, observationFields, 'an observation', context);
    const updates = readUpdates(input.updates, context);
    if (context.problems.length > 0) {
      const kept = unreadableResults(updates, context);
      return { ok: false, problems: context.problems, ...(kept.length > 0 ? { kept } : {}) };
    }
    return { ok: true, value: updates, ignored: context.ignored };
  } catch (error) {
    return unreadable(error, 'observation');
  }
}

/**
 * What an observation that cannot be read whole still leaves (E1): every tool result it
 * carries, as a result that came and could not be read — keyed by its call where the
 * call's arguments read, its fields unread. Nothing else of it is applied: forgetting
 * such a result would make a `not` over it hold, and keeping its content would apply an
 * observation in part. A result past `maxInstances` is not among them (the session
 * fails closed instead).
 */
function unreadableResults(
  updates: readonly StateUpdate[],
  context: ReadContext,
): readonly StateUpdate[] {
  const why = context.problems[0]?.message ?? 'it could not be read';
  const kept: StateUpdate[] = [];
  for (const update of updates) {
    const { predicate } = update;
    if (predicate.declaration.resultOf === undefined || update.operation === 'delete') continue;
    if (update.unreadable !== undefined) kept.push(update);
    else
      kept.push(
        unreadableResult(predicate, update.key, new Map(update.assignments), {
          code: 'unreadable',
          message: `the observation it came in could not be read (${why})`,
        }),
      );
  }
  return kept;
}

/**
 * The label of a proposal as a history records it: a string within the value limit,
 * read without letting a host's throwing getter escape.
 */
export function proposalLabel(input: unknown, limits: Limits = defaultLimits): string | undefined {
  try {
    const label = isRecord(input) ? input.label : undefined;
    return typeof label === 'string' && label.length <= limits.maxValueLength ? label : undefined;
  } catch {
    return undefined;
  }
}

/** A canonical text of a proposal: equal for identical proposals (labels ignored). */
export function proposalFingerprint(proposal: NormalizedProposal): string {
  const parts: string[] = [];
  if (proposal.finish) parts.push('finish');
  if (proposal.answer !== undefined) parts.push(`answer:${proposal.answer}`);
  if (proposal.ask !== undefined) parts.push(`ask:${proposal.ask}`);
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
