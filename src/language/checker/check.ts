import {
  type ArgumentProblem,
  argumentDiagnostic,
  firstProblem,
  parsedSpecProblem,
  parseOptionsProblem,
  schemaProblem,
  sourceProblem,
} from '../arguments.js';
import {
  type AtomNode,
  alternativeSuffix,
  type ComparisonAtom,
  expandBody,
  type RuleNode,
  ruleIds,
} from '../ast.js';
import {
  type Diagnostic,
  DiagnosticBag,
  hasErrors,
  sortDiagnostics,
} from '../diagnostics/diagnostic.js';
import { resolveLimits } from '../limits.js';
import {
  emptyParsedSpec,
  type ParsedSpec,
  type ParseOptions,
  parseWithDiagnostics,
} from '../parser.js';
import { failure, type Result, success } from '../result.js';
import { createSchema, findVariable, type Schema } from '../schema-model.js';
import { resolveComparison } from './comparisons.js';
import { resolveGivens } from './givens.js';
import { reportNoObservedState } from './observed-state.js';
import { reportCycles, reportReachability } from './reachability.js';
import { reportRecordListComparisons } from './record-lists.js';
import {
  type NameScope,
  type ResolvedAtom,
  reportContradictions,
  resolveAtom,
  resolvePattern,
  ruleAnnotations,
  unknownNameHint,
} from './resolve.js';
import {
  type CheckedComparison,
  type CheckedGuard,
  type CheckedPattern,
  type CheckedRule,
  type CheckedScope,
  type ObjectiveCondition,
  resolvePredicate,
  type SpecFromText,
} from './spec.js';
import { isScopeAtom, resolveScope } from './universal.js';

export interface CheckOptions extends ParseOptions {
  /**
   * `policy`: the operator's standing rules (LANGUAGE.md §8) — no Done rule, no `given`,
   * no `refused`. Default `intent`.
   */
  readonly role?: 'intent' | 'policy';
  /**
   * The objectives of the other file of a composition (the policy's when checking an
   * intent, and the reverse): naming one is `foreign-objective`, not `unknown-objective`.
   */
  readonly foreignObjectives?: ReadonlySet<string>;
}

/**
 * Checks a parsed spec against a schema with every static rule of LANGUAGE.md §5.4.
 * Returns a `Spec` only when there are no errors; all diagnostics either way.
 */
export function check(
  parsed: ParsedSpec,
  schema: Schema,
  options: CheckOptions = {},
): Result<SpecFromText> {
  const misuse = firstProblem(
    parsedSpecProblem(parsed),
    schemaProblem(schema),
    parseOptionsProblem(options),
  );
  if (misuse) return failure([argumentDiagnostic('check', misuse)]);
  const { spec, diagnostics } = checkWithDiagnostics(parsed, schema, options);
  return diagnostics.some((diagnostic) => diagnostic.severity === 'error')
    ? failure(diagnostics)
    : success(spec, diagnostics);
}

/**
 * Parses and checks spec text in one step — what most callers want.
 *
 * @example
 * const result = checkSpec('BankCheckBalance() -> Known\nKnown -> Done', schema);
 * if (!result.ok) console.error(renderDiagnostics(result.diagnostics, text));
 */
export function checkSpec(
  source: string,
  schema: Schema,
  options: CheckOptions = {},
): Result<SpecFromText> {
  const misuse = firstProblem(
    sourceProblem(source),
    schemaProblem(schema),
    parseOptionsProblem(options),
  );
  if (misuse) return failure([argumentDiagnostic('checkSpec', misuse)]);
  const parsed = parseWithDiagnostics(source, options);
  const checked = checkWithDiagnostics(parsed.value, schema, options, parsed.diagnostics);
  const diagnostics = sortDiagnostics([...parsed.diagnostics, ...checked.diagnostics]);
  return diagnostics.some((diagnostic) => diagnostic.severity === 'error')
    ? failure(diagnostics)
    : success({ ...checked.spec, warnings: diagnostics }, diagnostics);
}

/**
 * Diagnostics that judge the spec as a whole. After a syntax error the parser has
 * dropped the broken item, so the tree is partial: a Done rule or a rule head may be
 * missing only because its line did not parse. These conclusions would then be false,
 * and (pointing at the first line) would be read before their cause; they are left out
 * until the syntax is fixed.
 */
const wholeSpecCodes: ReadonlySet<string> = new Set(['missing-done', 'unknown-objective']);

/**
 * The checker proper: always returns what it could resolve, plus every diagnostic.
 * `parseDiagnostics` are the parser's diagnostics for `parsed` (from
 * `parseWithDiagnostics`): when they hold an error, the tree is partial and the
 * whole-spec diagnostics (missing Done, unknown objectives, reachability) are left out.
 */
export function checkWithDiagnostics(
  parsed: ParsedSpec,
  schema: Schema,
  options: CheckOptions = {},
  parseDiagnostics: readonly Diagnostic[] = [],
): { readonly spec: SpecFromText; readonly diagnostics: readonly Diagnostic[] } {
  const misuse = firstProblem(
    parsedSpecProblem(parsed),
    schemaProblem(schema),
    parseOptionsProblem(options),
  );
  if (misuse) return invalidCheck(misuse, schema);
  const syntaxErrors = hasErrors(parseDiagnostics);
  const limits = resolveLimits(options.limits);
  const diagnostics = new DiagnosticBag(limits.maxDiagnostics);
  const { ast } = parsed;
  const ruleNodes = ast.items.filter((item): item is RuleNode => item.kind === 'rule');
  const ids = ruleIds(ast);

  const labelled = new Map<string, RuleNode>();
  for (const node of ruleNodes) {
    if (!node.label) continue;
    if (labelled.has(node.label.name)) {
      diagnostics.report(
        'duplicate-label',
        { range: node.label.range },
        { label: node.label.name },
      );
    } else labelled.set(node.label.name, node);
  }

  const policy = options.role === 'policy';
  const objectives = new Set<string>();
  for (const node of ruleNodes) {
    if (node.head.isDone) {
      if (policy) diagnostics.report('done-in-policy', { range: node.head.range });
      continue;
    }
    const declared = resolvePredicate(schema, node.head.name.name);
    if (declared) {
      diagnostics.report(
        'predicate-as-head',
        { range: node.head.name.range },
        {
          name: declared.name,
          kind: declared.kind === 'action' ? 'an action' : 'a state predicate',
          suggestion: `${declared.name}Done`,
        },
      );
      continue;
    }
    objectives.add(node.head.name.name);
  }

  const scope: NameScope = {
    schema,
    objectives,
    diagnostics,
    role: policy ? 'policy' : 'intent',
    ...(options.foreignObjectives ? { foreign: options.foreignObjectives } : {}),
  };
  const rules: CheckedRule[] = [];
  const contradictory = new Set<CheckedRule>();
  // A disjunctive rule's alternatives share atoms: each is resolved (and reported) once.
  const resolvedAtoms = new Map<AtomNode, ResolvedAtom>();
  const contradictions = new Map<CheckedPattern, boolean>();
  const resolveOnce = (atom: AtomNode, ruleScope: NameScope): ResolvedAtom => {
    let resolved = resolvedAtoms.get(atom);
    if (!resolved) {
      resolved = resolveAtom(atom, ruleScope);
      resolvedAtoms.set(atom, resolved);
    }
    return resolved;
  };
  const resolvedScopes = new Map<AtomNode, CheckedScope | undefined>();
  const resolveScopeOnce = (
    atom: Parameters<typeof resolveScope>[0],
    ruleScope: NameScope,
  ): CheckedScope | undefined => {
    if (!resolvedScopes.has(atom)) resolvedScopes.set(atom, resolveScope(atom, ruleScope));
    return resolvedScopes.get(atom);
  };
  const resolvedComparisons = new Map<ComparisonAtom, CheckedComparison | undefined>();
  const resolveComparisonOnce = (
    atom: ComparisonAtom,
    ruleScope: NameScope,
  ): CheckedComparison | undefined => {
    if (resolvedComparisons.has(atom)) return resolvedComparisons.get(atom);
    const checked = resolveComparison(atom, ruleScope.bindings ?? new Map(), ruleScope, 'rule');
    resolvedComparisons.set(atom, checked);
    return checked;
  };
  const contradictsOnce = (pattern: CheckedPattern): boolean => {
    let found = contradictions.get(pattern);
    if (found === undefined) {
      found = reportContradictions(pattern, scope);
      contradictions.set(pattern, found);
    }
    return found;
  };
  ruleNodes.forEach((node, nodeIndex) => {
    const expanded = expandBody(node.body, limits.maxAlternatives);
    if (expanded.truncated) {
      diagnostics.report(
        'too-many-alternatives',
        { range: node.range },
        { limit: limits.maxAlternatives },
      );
    }
    const baseId = ids[nodeIndex] ?? `R${nodeIndex + 1}`;
    // Bindings (`$x`) are scoped to one rule, bound in body order (LANGUAGE.md §7).
    const ruleScope: NameScope = { ...scope, bindings: new Map() };
    const disjunctive = node.body.some((atom) => atom.kind === 'disjunction');
    let annotations: ReturnType<typeof ruleAnnotations> | undefined;
    expanded.bodies.forEach((body, alternativeIndex) => {
      const states: CheckedPattern[] = [];
      const negations: CheckedPattern[] = [];
      const conditions: ObjectiveCondition[] = [];
      let action: CheckedPattern | undefined;
      let invalid = expanded.truncated;
      for (const atom of body) {
        if (isScopeAtom(atom)) continue;
        if (atom.kind === 'comparison') continue;
        const resolved = resolveOnce(atom, ruleScope);
        if (resolved.kind === 'invalid') {
          invalid = true;
        } else if (resolved.kind === 'objective') {
          conditions.push(resolved.condition);
        } else if (resolved.kind === 'negation') {
          negations.push(resolved.pattern);
        } else if (resolved.pattern.predicate.kind === 'action') {
          if (action) {
            diagnostics.report(
              'multiple-action-patterns',
              { range: atom.range },
              {
                first: action.predicate.name,
                second: resolved.pattern.predicate.name,
              },
            );
            invalid = true;
          } else action = resolved.pattern;
        } else {
          states.push(resolved.pattern);
        }
      }
      // Scopes (LANGUAGE.md §9) see every binding the body makes, wherever it is made.
      const scopes: CheckedScope[] = [];
      for (const atom of body) {
        if (!isScopeAtom(atom)) continue;
        const resolved = resolveScopeOnce(atom, ruleScope);
        if (resolved === undefined) invalid = true;
        else scopes.push(resolved);
      }
      // Comparisons read the bindings of every pattern of the body (v3).
      const comparisons: CheckedComparison[] = [];
      for (const atom of body) {
        if (atom.kind !== 'comparison') continue;
        const checked = resolveComparisonOnce(atom, ruleScope);
        if (checked === undefined) invalid = true;
        else comparisons.push(checked);
      }
      if (action && node.head.isDone) {
        diagnostics.report(
          'action-in-done-rule',
          { range: action.range },
          { name: action.predicate.name },
        );
        invalid = true;
      }
      annotations ??= ruleAnnotations(node, scope, action);
      let ruleAnnotationsHere = annotations;
      const per = annotations.repeat?.per;
      if (per && alternativeIndex > 0) {
        // Each alternative reads the argument from its own action.
        const own = action ? findVariable(action.predicate, per.name) : undefined;
        if (!own) {
          diagnostics.report(
            'repeat-per-without-action',
            { range: node.range },
            {
              name: per.name,
              hint: 'Every alternative needs an action with that argument.',
            },
          );
          invalid = true;
        } else
          ruleAnnotationsHere = { ...annotations, repeat: { ...annotations.repeat, per: own } };
      }
      const suffix =
        disjunctive && expanded.bodies.length > 1 ? alternativeSuffix(alternativeIndex) : '';
      const rule: CheckedRule = {
        id: `${baseId}${suffix}`,
        index: rules.length,
        node,
        head: node.head.name.name,
        isDone: node.head.isDone,
        ...ruleAnnotationsHere,
        ...(disjunctive ? { alternative: { suffix, body } } : {}),
        states,
        ...(negations.length > 0 ? { negations } : {}),
        ...(action ? { action } : {}),
        objectives: conditions,
        ...(scopes.length > 0 ? { scopes } : {}),
        ...(comparisons.length > 0 ? { comparisons } : {}),
      };
      let impossible = false;
      for (const pattern of action ? [...states, action] : states) {
        if (contradictsOnce(pattern)) impossible = true;
      }
      // A single-instance state holds one value per variable, so patterns on it combine.
      if (!impossible) {
        for (const merged of mergeSingleInstancePatterns(states)) {
          if (reportContradictions(merged, scope)) impossible = true;
        }
      }
      if (impossible || invalid) contradictory.add(rule);
      rules.push(rule);
    });
  });

  const guards: CheckedGuard[] = [];
  ast.items.forEach((item, index) => {
    if (item.kind !== 'guard') return;
    const predicate = schema.predicates.get(item.predicate.name);
    if (!predicate) {
      const names = [...schema.predicates.keys()];
      diagnostics.report(
        'unknown-predicate',
        { range: item.predicate.range },
        {
          name: item.predicate.name,
          hint: unknownNameHint(item.predicate.name, names, names),
        },
      );
      return;
    }
    const guardScope: NameScope = { ...scope, bindings: new Map() };
    const pattern = resolvePattern(
      predicate,
      item.constraints,
      item.range,
      guardScope,
      item.absent,
    );
    reportContradictions(pattern, scope);
    const comparisons = (item.comparisons ?? []).flatMap((atom) => {
      const checked = resolveComparison(
        atom,
        guardScope.bindings ?? new Map(),
        guardScope,
        'guard',
      );
      return checked === undefined ? [] : [checked];
    });
    guards.push({
      index,
      node: item,
      mode: item.mode,
      pattern,
      ...(comparisons.length > 0 ? { comparisons } : {}),
      ...(item.reason !== undefined ? { reason: item.reason } : {}),
    });
  });

  const givens = resolveGivens(ast.items, scope);

  const doneRules = rules.filter((rule) => rule.isDone);
  if (doneRules.length === 0 && !policy) {
    // Point at the first rule (or the start of the spec): that is where a reader looks.
    const first = ast.items[0]?.range ?? ast.range;
    diagnostics.report('missing-done', { range: { start: first.start, end: first.start } });
  }

  const cyclic = reportCycles(rules, diagnostics);
  for (const rule of rules) if (cyclic.has(rule.head)) contradictory.add(rule);
  // Reachability is judged only on an otherwise valid spec: after an error, rules that
  // depend on the broken one would all be reported again as unreachable (and a literal
  // the lexer could not read, such as an invalid regex, makes guards look total).
  if (!diagnostics.hasErrors && !syntaxErrors)
    reportReachability(rules, guards, contradictory, objectives, diagnostics, policy);
  // Advice on the schema the spec runs against, once the spec itself is right.
  if (!diagnostics.hasErrors && !syntaxErrors) reportNoObservedState(rules, schema, diagnostics);
  if (!diagnostics.hasErrors && !syntaxErrors)
    reportRecordListComparisons(rules, guards, diagnostics);

  const byObjective = new Map<string, CheckedRule[]>();
  for (const rule of rules) {
    if (rule.isDone) continue;
    const list = byObjective.get(rule.head) ?? [];
    list.push(rule);
    byObjective.set(rule.head, list);
  }
  const sorted = sortDiagnostics(
    syntaxErrors
      ? diagnostics.items.filter((diagnostic) => !wholeSpecCodes.has(diagnostic.code))
      : diagnostics.items,
  );
  return {
    spec: {
      source: parsed.source,
      lines: parsed.lines,
      ast,
      schema,
      rules,
      guards,
      objectives: byObjective,
      doneRules,
      warnings: sorted.filter((diagnostic) => diagnostic.severity === 'warning'),
      ...(policy ? { role: 'policy' as const } : {}),
      ...(givens.length > 0 ? { givens } : {}),
    },
    diagnostics: sorted,
  };
}

/** What `checkWithDiagnostics` answers to a bad argument: an empty spec and the diagnostic. */
function invalidCheck(
  misuse: ArgumentProblem,
  schema: unknown,
): { readonly spec: SpecFromText; readonly diagnostics: readonly Diagnostic[] } {
  const parsed = emptyParsedSpec();
  const diagnostics = [argumentDiagnostic('checkWithDiagnostics', misuse)];
  return {
    spec: {
      source: parsed.source,
      lines: parsed.lines,
      ast: parsed.ast,
      schema: schemaProblem(schema) === undefined ? (schema as Schema) : createSchema('', []),
      rules: [],
      guards: [],
      objectives: new Map(),
      doneRules: [],
      warnings: [],
    },
    diagnostics,
  };
}

function mergeSingleInstancePatterns(states: readonly CheckedPattern[]): CheckedPattern[] {
  const groups = new Map<string, CheckedPattern[]>();
  for (const pattern of states) {
    if (pattern.predicate.keys.length > 0) continue;
    const list = groups.get(pattern.predicate.name) ?? [];
    list.push(pattern);
    groups.set(pattern.predicate.name, list);
  }
  const merged: CheckedPattern[] = [];
  for (const patterns of groups.values()) {
    const [first, ...rest] = patterns;
    if (!first || rest.length === 0) continue;
    merged.push({
      predicate: first.predicate,
      constraints: patterns.flatMap((pattern) => pattern.constraints),
      range: first.range,
    });
  }
  return merged;
}
