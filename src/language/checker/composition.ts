import {
  argumentDiagnostic,
  firstProblem,
  parseOptionsProblem,
  schemaProblem,
  sourceProblem,
  specProblem,
} from '../arguments.js';
import type { RuleNode, SpecNode } from '../ast.js';
import { createDiagnostic, type Diagnostic, sortDiagnostics } from '../diagnostics/diagnostic.js';
import { type ParseOptions, parseWithDiagnostics } from '../parser.js';
import { printGuard } from '../printer.js';
import { failure, type Result, success } from '../result.js';
import type { Schema } from '../schema-model.js';
import { type CheckOptions, checkSpec, checkWithDiagnostics } from './check.js';
import { shadowingGuard } from './reachability.js';
import { satisfiable } from './satisfiability.js';
import type { CheckedConstraint, CheckedRule, Spec, SpecFromText } from './spec.js';

/**
 * Checks the operator's policy (LANGUAGE.md §8): the same language over the same schema,
 * without Done rules, `given` or `refused`.
 *
 * @example
 * const policy = checkPolicy('reject cancel_reservation(reason = "other")', schema);
 * if (!policy.ok) console.error(renderDiagnostics(policy.diagnostics, text));
 */
export function checkPolicy(
  source: string,
  schema: Schema,
  options: ParseOptions = {},
): Result<SpecFromText> {
  return checkSpec(source, schema, { ...options, role: 'policy' });
}

/** Each file's diagnostics when an intent and a policy are checked together. */
export interface CompositionDiagnostics {
  readonly intent: readonly Diagnostic[];
  readonly policy: readonly Diagnostic[];
}

/**
 * Every diagnostic of an intent and a policy checked together (LANGUAGE.md §8), each
 * under its own file: both against one schema, each side's objectives its own, and —
 * when both are free of errors — the warnings of the pair (`policy-conflict`,
 * `empty-policy`). What `intentguard check INTENT --policy P` prints.
 *
 * @example
 * const { intent, policy } = analyzeComposition(intentText, policyText, schema);
 * console.log(renderDiagnostics(intent, intentText, { fileName: 'task.intent' }));
 */
export function analyzeComposition(
  intentSource: string,
  policySource: string,
  schema: Schema,
  options: ParseOptions = {},
): CompositionDiagnostics {
  const misuse = firstProblem(
    sourceProblem(intentSource, 'intentSource'),
    sourceProblem(policySource, 'policySource'),
    schemaProblem(schema),
    parseOptionsProblem(options),
  );
  if (misuse) return { intent: [argumentDiagnostic('analyzeComposition', misuse)], policy: [] };
  const intentParsed = parseWithDiagnostics(intentSource, options);
  const policyParsed = parseWithDiagnostics(policySource, options);
  const intentHeads = objectiveHeads(intentParsed.value.ast);
  const policyHeads = objectiveHeads(policyParsed.value.ast);
  const intentOptions: CheckOptions = { ...options, foreignObjectives: policyHeads };
  const policyOptions: CheckOptions = {
    ...options,
    role: 'policy',
    foreignObjectives: intentHeads,
  };
  const intentChecked = checkWithDiagnostics(
    intentParsed.value,
    schema,
    intentOptions,
    intentParsed.diagnostics,
  );
  const policyChecked = checkWithDiagnostics(
    policyParsed.value,
    schema,
    policyOptions,
    policyParsed.diagnostics,
  );
  const intent = [...intentParsed.diagnostics, ...intentChecked.diagnostics];
  const policy = [...policyParsed.diagnostics, ...policyChecked.diagnostics];
  intent.push(...sharedObjectives(intentParsed.value.ast, policyHeads));
  if (!intent.some(isError) && !policy.some(isError)) {
    const pair = compositionWarnings(intentChecked.spec, policyChecked.spec);
    intent.push(...pair.intent);
    policy.push(...pair.policy);
  }
  return { intent: sortDiagnostics(intent), policy: sortDiagnostics(policy) };
}

/** A checked intent and policy, composed: what `createSession(intent, { policy })` enforces. */
export interface CheckedComposition {
  readonly intent: SpecFromText;
  readonly policy: SpecFromText;
}

/**
 * Checks an intent and a policy together; `ok` only when neither has an error. The
 * diagnostics of both files are in `diagnostics` (the intent's, then the policy's);
 * `analyzeComposition` keeps them apart for rendering.
 */
export function checkComposition(
  intentSource: string,
  policySource: string,
  schema: Schema,
  options: ParseOptions = {},
): Result<CheckedComposition> {
  const { intent, policy } = analyzeComposition(intentSource, policySource, schema, options);
  const diagnostics = [...intent, ...policy];
  if (diagnostics.some(isError)) return failure(diagnostics);
  const intentSpec = checkSpec(intentSource, schema, options);
  const policySpec = checkPolicy(policySource, schema, options);
  if (!intentSpec.ok || !policySpec.ok)
    return failure([...intentSpec.diagnostics, ...policySpec.diagnostics]);
  return success({ intent: intentSpec.value, policy: policySpec.value }, diagnostics);
}

function isError(diagnostic: Diagnostic): boolean {
  return diagnostic.severity === 'error';
}

function objectiveHeads(ast: SpecNode): ReadonlySet<string> {
  const heads = new Set<string>();
  for (const item of ast.items)
    if (item.kind === 'rule' && !item.head.isDone) heads.add(item.head.name.name);
  return heads;
}

/** An objective both files produce: each side counts its own, so one name cannot mean both. */
function sharedObjectives(intent: SpecNode, policyHeads: ReadonlySet<string>): Diagnostic[] {
  const reported = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const item of intent.items) {
    if (item.kind !== 'rule' || item.head.isDone) continue;
    const name = item.head.name.name;
    if (!policyHeads.has(name) || reported.has(name)) continue;
    reported.add(name);
    diagnostics.push(createDiagnostic('shared-objective', { range: item.head.range }, { name }));
  }
  return diagnostics;
}

/**
 * The warnings of a checked pair, decidable from constants alone: an intent rule whose
 * action every policy permission or a reject guard refuses (`policy-conflict`, on the
 * intent), and a policy that permits and refuses nothing (`empty-policy`, on the policy).
 */
export function compositionWarnings(intent: Spec, policy: Spec): CompositionDiagnostics {
  const misuse = firstProblem(specProblem(intent, 'intent'), specProblem(policy, 'policy'));
  if (misuse) return { intent: [argumentDiagnostic('compositionWarnings', misuse)], policy: [] };
  const permissions = policy.rules.filter((rule) => rule.action !== undefined);
  const policyWarnings: Diagnostic[] = [];
  if (permissions.length === 0 && policy.guards.length === 0) {
    const first = policy.ast?.items[0]?.range ?? policy.ast?.range;
    policyWarnings.push(
      createDiagnostic('empty-policy', {
        range: first ? { start: first.start, end: first.start } : undefined,
      }),
    );
  }
  const intentWarnings: Diagnostic[] = [];
  for (const rule of intent.rules) {
    const action = rule.action;
    if (!action) continue;
    const name = action.predicate.name;
    const guard = shadowingGuard(rule, policy.guards);
    const governing = permissions.filter(
      (permission) => permission.action?.predicate.name === name,
    );
    let how: string | undefined;
    if (guard) how = `by its guard '${guard.node ? printGuard(guard.node) : `reject ${name}`}'`;
    else if (governing.length > 0 && governing.every((permission) => excludes(rule, permission)))
      how = `with these arguments (no permission of it, ${governing.map((permission) => permission.id).join(', ')}, allows them)`;
    if (how === undefined) continue;
    intentWarnings.push(
      createDiagnostic(
        'policy-conflict',
        { range: (rule.node as RuleNode | undefined)?.range ?? action.range },
        { rule: rule.id, name, how },
      ),
    );
  }
  return { intent: intentWarnings, policy: policyWarnings };
}

/** Whether no call can satisfy both rules' constraints on their common action's arguments. */
function excludes(rule: CheckedRule, permission: CheckedRule): boolean {
  const plain = (constraint: CheckedConstraint) =>
    constraint.access === undefined && constraint.binding === undefined;
  const ours = (rule.action?.constraints ?? []).filter(plain);
  const theirs = (permission.action?.constraints ?? []).filter(plain);
  return theirs.some((constraint) => {
    const together = [
      ...ours.filter((own) => own.variable.name === constraint.variable.name),
      constraint,
    ];
    return !satisfiable(together, constraint.variable.type);
  });
}
