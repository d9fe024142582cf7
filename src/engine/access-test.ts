import {
  type CheckedAccess,
  type CheckedConstraint,
  type CheckedStep,
  isDecimal,
  normalizeText,
  type VariableType,
} from '../language/index.js';
import { aggregateOf } from './aggregates.js';
import type { SessionClock } from './clock.js';
import {
  type CompileSettings,
  type ConstraintTest,
  compileConstraintTest,
} from './constraint-test.js';
import { compileGuardTest } from './guard-constraint-test.js';
import { mapEntries, mapKeys, mapValues, tooLarge } from './map-steps.js';
import {
  canonicalJson,
  isTextValue,
  parseValue,
  type ScalarValue,
  TextValue,
  type Value,
} from './values.js';

/**
 * Run-time paths, filters, projections and `count`/`len`/`any`/`each` (LANGUAGE.md §7).
 * A value is walked as JSON data: a `json` variable's JSON text is read as its structure
 * (a string that merely looks like JSON is not), plain values stay what they are. When
 * the walk meets a missing field, a value that is not a list where one is needed, or a
 * value the operator cannot compare, the constraint is false in a rule and true in a
 * guard (guards err toward firing, §5.1). Filters select with the rules' reading in
 * both: a filter is a selection, and no reading of a missing field is broader for every
 * operator that may follow it.
 */

export const missing: unique symbol = Symbol('missing');
type Missing = typeof missing;

/**
 * Inside `not P(…)`: a filter met an element that the rules' reading drops and the
 * deny-list reading may keep (a look-alike, a part, or on a record an element that does
 * not fit it). Whether the filter keeps it is open, so the constraint counts as matching
 * and `not` fails closed (E2, E9), whatever follows the filter.
 */
export const undecided: unique symbol = Symbol('undecided');
type Undecided = typeof undecided;

/** Data: JSON values, plus exact decimals and the strings of enum members. */
type Data = unknown;

/**
 * The data of each list, made once per list value (values are never mutated); short
 * lists — the one-element lists a binding filter's walk makes — each time (join.ts).
 */
const listData = new WeakMap<readonly ScalarValue[], readonly Data[]>();
const cachedListLength = 8;

function dataOf(value: Value): Data {
  if (Array.isArray(value)) {
    const list = value as readonly ScalarValue[];
    if (list.length < cachedListLength)
      return list.map((item) => (isTextValue(item) ? item.json : item));
    let data = listData.get(list);
    if (data === undefined) {
      data = list.map((item) => (isTextValue(item) ? item.json : item));
      listData.set(list, data);
    }
    return data;
  }
  return isTextValue(value) ? value.json : value;
}

function isObject(data: Data): data is Readonly<Record<string, Data>> {
  return typeof data === 'object' && data !== null && !Array.isArray(data) && !isDecimal(data);
}

/** Data as text: a string is itself; anything else its canonical JSON text. */
function textOf(data: Data): string {
  return typeof data === 'string' ? data : canonicalJson(data);
}

/**
 * An agent's argument with a foreign offset is refused as a typed argument is (the tool
 * might read its local part): it does not fit. A tool's result is converted.
 */
const observedOptions = { json: false, foreignOffsets: 'convert' } as const;
const proposedOptions = { json: false, foreignOffsets: 'refuse' } as const;

/** How values are read: the guards' way (mismatches hold) or the rules', an agent's or a tool's. */
interface Reading {
  readonly guard: boolean;
  /**
   * What a constraint is when its value does not fit (missing, wrong shape): the guard's
   * `true` unless set. Set `true` for a rule's `not P(…)` over a record (below).
   */
  readonly unfit?: boolean;
  /**
   * Inside a rule's `not P(…)`: compare with the deny-list reading, and let a filter that
   * cannot tell whether it keeps an element make the constraint match (`undecided`). On
   * a record (`record: true`) a value that is not of its field's type does not fit: a
   * number or a boolean in a text field too.
   */
  readonly negated?: { readonly record: boolean };
  readonly options: typeof observedOptions | typeof proposedOptions;
}

/**
 * Data read as one value of `type`, as an observation would read it; `missing` if it
 * cannot be. An object or array compared as text is its canonical JSON text in a rule;
 * in a guard it does not fit (`{"to": ["mallory@x.com"]}` is not "some other text" a
 * guard on `to` may let through: the tool may read the element).
 */
function convertScalar(
  data: Data,
  type: VariableType,
  clock: SessionClock,
  reading: Reading,
): Value | Missing {
  if (data === null || data === undefined) return missing;
  if (type.kind === 'text') {
    if (reading.guard && typeof data === 'object' && !isDecimal(data)) return missing;
    if (reading.negated?.record === true && typeof data !== 'string') return missing;
    if (typeof data === 'string' || typeof data === 'object' || typeof data === 'boolean') {
      const text = textOf(data);
      return new TextValue(text, normalizeText(text));
    }
    if (typeof data === 'number' && Number.isFinite(data)) {
      const text = String(data);
      return new TextValue(text, normalizeText(text));
    }
    return missing;
  }
  if (isDecimal(data)) return type.kind === 'number' ? data : missing;
  if (typeof data === 'object') return missing;
  const parsed = parseValue(data, type, clock, reading.options);
  return parsed.ok ? parsed.value : missing;
}

function convert(
  data: Data,
  type: VariableType,
  clock: SessionClock,
  reading: Reading,
): Value | Missing {
  if (type.kind !== 'list') return convertScalar(data, type, clock, reading);
  if (!Array.isArray(data)) return missing;
  const element: VariableType = { kind: type.element };
  const values: ScalarValue[] = [];
  for (const item of data) {
    const value = convertScalar(item, element, clock, reading);
    if (value === missing) return missing;
    values.push(value as ScalarValue);
  }
  return values;
}

type Step = (data: Data, clock: SessionClock) => Data | Missing | Undecided;

function compileStep(step: CheckedStep, settings: CompileSettings, reading: Reading): Step {
  if (step.kind === 'field') {
    const name = step.name;
    const read = (item: Data): Data | Missing =>
      isObject(item) && Object.hasOwn(item, name) ? item[name] : missing;
    return memoizedOnLists((data) => {
      if (!Array.isArray(data)) return read(data);
      // A projection: the field of every element. An element without it is a missing field
      // (LANGUAGE.md §7): the constraint does not fit, so that `each(results.verified) =
      // true` cannot hold because the unverified element left the field out.
      const values: Data[] = [];
      for (const item of data) {
        const value = read(item);
        if (value === missing) return missing;
        values.push(value);
      }
      return values;
    });
  }
  if (step.kind === 'index') {
    // `list[0]`, `list[-1]` (LANGUAGE.md §9): out of range is a missing value.
    const position = step.position;
    return (data) => {
      if (!Array.isArray(data)) return missing;
      const index = position < 0 ? data.length + position : position;
      return index >= 0 && index < data.length ? data[index] : missing;
    };
  }
  if (step.kind === 'values' || step.kind === 'keys') {
    // `m.*`, `keys(m)` (LANGUAGE.md §9): on a non-object, a missing value. A map too large
    // to read within maxJoinWork is missing too, and inside `not` matches (undecided).
    const read = step.kind === 'values' ? mapValues : mapKeys;
    const tooMany = reading.negated === undefined ? missing : undecided;
    return (data) => {
      if (!isObject(data)) return missing;
      const entries = mapEntries(data);
      return entries === tooLarge ? tooMany : (read(entries) as Data);
    };
  }
  // Filters select with the rules' reading, in guards too.
  const strict: Reading = { guard: false, options: reading.options };
  const tests = step.constraints.map((constraint) => compileDataTest(constraint, settings, strict));
  const negated = reading.negated;
  if (negated === undefined)
    return memoizedOnLists((data, clock) =>
      Array.isArray(data)
        ? data.filter((item) => tests.every((test) => test(item, clock)))
        : missing,
    );
  // Inside `not`: an element the deny-list reading may keep, and the rules' does not.
  const possible: Reading = {
    guard: false,
    negated,
    unfit: negated.record,
    options: reading.options,
  };
  const possibly = step.constraints.map((constraint) =>
    compileDataTest(constraint, settings, possible),
  );
  return memoizedOnLists((data, clock) => {
    if (!Array.isArray(data)) return missing;
    const kept: Data[] = [];
    for (const item of data) {
      if (tests.every((test) => test(item, clock))) kept.push(item);
      else if (possibly.every((test) => test(item, clock))) return undecided;
    }
    return kept;
  });
}

/**
 * A step over a list, remembered per list and clock: data never changes once read (a
 * value is replaced, never mutated), and a session's clock is fixed, so re-deciding a
 * proposal against the same result list costs a lookup rather than a walk of the list.
 */
function memoizedOnLists(step: Step): Step {
  const memo = new WeakMap<object, { clock: SessionClock; result: Data | Missing | Undecided }>();
  return (data, clock) => {
    if (!Array.isArray(data)) return step(data, clock);
    const known = memo.get(data);
    if (known !== undefined && known.clock === clock) return known.result;
    const result = step(data, clock);
    memo.set(data, { clock, result });
    return result;
  };
}

type DataTest = (data: Data, clock: SessionClock) => boolean;

/** The test of a constraint with an access on the data of its variable's value. */
function compileDataTest(
  constraint: CheckedConstraint,
  settings: CompileSettings,
  reading: Reading,
): DataTest {
  const guard = reading.guard;
  // `guard` below is only what a value that does not fit makes the constraint.
  const unfit = reading.unfit ?? guard;
  const access = constraint.access as CheckedAccess;
  const steps = access.steps.map((step) => compileStep(step, settings, reading));
  const compared = access.compared;
  const synthetic: CheckedConstraint = {
    ...constraint,
    variable: { name: access.text, type: compared },
  };
  const test =
    guard || reading.negated !== undefined
      ? compileGuardTest(synthetic, settings)
      : compileConstraintTest(synthetic, settings);
  /** One compared value: a value that cannot be compared holds in a guard only. */
  const compare = (data: Data, clock: SessionClock): boolean => {
    const value = convert(data, compared, clock, reading);
    return value === missing ? unfit : test(value, clock);
  };
  /** The data at the end of the path: `undecided` reads as matching (inside `not` only). */
  const walk = (data: Data, clock: SessionClock): Data | Missing | Undecided => {
    let current: Data | Missing | Undecided = data;
    for (const step of steps) {
      current = step(current, clock);
      if (current === missing || current === undecided) return current;
    }
    return current;
  };
  const regex = access.matches;
  switch (access.function) {
    case 'sum':
    case 'min':
    case 'max': {
      const aggregate = aggregateOf(access.function);
      return (data, clock) => {
        const list = walk(data, clock);
        if (list === undecided) return true;
        const value = Array.isArray(list) ? aggregate(list) : undefined;
        return value === undefined ? unfit : test(value, clock);
      };
    }
    case 'count':
      return (data, clock) => {
        const list = walk(data, clock);
        if (list === undecided) return true;
        if (!Array.isArray(list)) return unfit;
        const count =
          regex === undefined
            ? list.length
            : list.filter((item) => regex.test(normalizeText(textOf(item)))).length;
        return test(count, clock);
      };
    case 'len':
      return (data, clock) => {
        const subject = walk(data, clock);
        if (subject === undecided) return true;
        if (Array.isArray(subject)) return test(subject.length, clock);
        // Characters as a person counts them: code points of the text as given.
        if (typeof subject === 'string') return test([...subject].length, clock);
        return unfit;
      };
    case 'any':
      return (data, clock) => {
        const list = walk(data, clock);
        if (list === undecided) return true;
        return Array.isArray(list) ? list.some((item) => compare(item, clock)) : unfit;
      };
    case 'each':
      return (data, clock) => {
        const list = walk(data, clock);
        if (list === undecided) return true;
        return Array.isArray(list) ? list.every((item) => compare(item, clock)) : unfit;
      };
    default:
      return (data, clock) => {
        const subject = walk(data, clock);
        if (subject === undecided) return true;
        return subject === missing ? unfit : compare(subject, clock);
      };
  }
}

/**
 * Compiles a constraint whose left side is a path, filter or function (its `access`);
 * `guard` selects the guards' reading (mismatches hold, text matches broadly).
 * `negated`: the constraint is in a rule's `not P(…)`. It then compares with the deny-list
 * reading (a value counts as matching whenever a guard would count it as matching, E2),
 * and a filter that cannot tell whether it keeps an element makes it hold (`undecided`).
 * On a record (a shape the schema declares, LANGUAGE.md §7) a value that does not fit it
 * holds too, so that `not` fails: a result shaped against its schema (`{"speed": "calm"}`
 * for a number, `{"name": 42}` for a text) must not make "no storm" true. (On json, whose
 * shape nothing declares, a missing field stays false, as §7 says.)
 */
export function compileAccessTest(
  constraint: CheckedConstraint,
  settings: CompileSettings,
  guard: boolean,
  proposed: boolean,
  negated = false,
): ConstraintTest {
  const record = constraint.variable.record !== undefined;
  const test = compileDataTest(constraint, settings, {
    guard,
    ...(negated ? { negated: { record }, ...(record ? { unfit: true } : {}) } : {}),
    options: proposed ? proposedOptions : observedOptions,
  });
  return (value, clock) => test(dataOf(value), clock);
}

/**
 * The value a binding constraint's left side reads (LANGUAGE.md §7): the walk of its path
 * and function, as data; `undefined` when it does not fit. Lists stay lists (a projection
 * binds each element in turn).
 */
export function compileAccessValue(
  constraint: CheckedConstraint,
  settings: CompileSettings,
  proposed: boolean,
  negated = false,
): (value: Value, clock: SessionClock) => unknown {
  const access = constraint.access as CheckedAccess;
  // Inside `not`, a filter on the path that cannot tell gives `undecided` (E2, E9).
  const reading: Reading = {
    guard: false,
    ...(negated ? { negated: { record: constraint.variable.record !== undefined } } : {}),
    options: proposed ? proposedOptions : observedOptions,
  };
  const steps = access.steps.map((step) => compileStep(step, settings, reading));
  const regex = access.matches;
  return (value, clock) => {
    let current: Data | Missing | Undecided = dataOf(value);
    for (const step of steps) {
      current = step(current, clock);
      if (current === missing) return undefined;
      if (current === undecided) return undecided;
    }
    switch (access.function) {
      case 'sum':
      case 'min':
      case 'max':
        return Array.isArray(current) ? aggregateOf(access.function)(current) : undefined;
      case 'count':
        if (!Array.isArray(current)) return undefined;
        return regex === undefined
          ? current.length
          : current.filter((item) => regex.test(normalizeText(textOf(item)))).length;
      case 'len':
        if (Array.isArray(current)) return current.length;
        return typeof current === 'string' ? [...current].length : undefined;
      case 'any':
      case 'each': {
        // The elements, each read as the compared type (one that does not read: no fit).
        if (!Array.isArray(current)) return undefined;
        const compared = access.compared;
        if (compared.kind === 'text' || compared.kind === 'list' || compared.kind === 'enum')
          return current;
        return current.map((item) => {
          const value = convertScalar(item, compared, clock, reading);
          return value === missing ? undefined : value;
        });
      }
      default: {
        // `x as datetime = $d`: the coerced value is what the binding takes or compares.
        const compared = access.compared;
        if (compared.kind === 'text' || compared.kind === 'list' || compared.kind === 'enum')
          return current;
        const value = convertScalar(current, compared, clock, reading);
        return value === missing ? undefined : value;
      }
    }
  };
}

/**
 * One step of a path (a field, or a filter without bindings) on data, for the join's
 * walk of a path whose other filters bind or use bindings (LANGUAGE.md §7).
 */
export function compileDataStep(
  step: CheckedStep,
  settings: CompileSettings,
  proposed: boolean,
  negated?: { readonly record: boolean },
): (data: unknown, clock: SessionClock) => unknown {
  return compileStep(step, settings, {
    guard: false,
    ...(negated ? { negated } : {}),
    options: proposed ? proposedOptions : observedOptions,
  });
}

/**
 * A filter's constraint without bindings on one element, with the rules' reading; with
 * `negated` (inside `not`), whether the deny-list reading may keep the element.
 */
export function compileElementTest(
  constraint: CheckedConstraint,
  settings: CompileSettings,
  proposed: boolean,
  negated?: { readonly record: boolean },
): (data: unknown, clock: SessionClock) => boolean {
  return compileDataTest(constraint, settings, {
    guard: false,
    ...(negated ? { negated, unfit: negated.record } : {}),
    options: proposed ? proposedOptions : observedOptions,
  });
}

/** The data of a runtime value: a json variable's structure, anything else as it is. */
export function bindingData(value: Value): unknown {
  return dataOf(value);
}
