import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { printString } from '../printer.js';
import type { VariableDeclaration } from '../schema-model.js';
import type { CheckedConstraint, CheckedGuard, CheckedRule } from './spec.js';

/**
 * A type-aware lint for specs that check but cannot mean what they say: a list whose
 * elements are records (a tool's array of objects, read in version 1 as the elements'
 * JSON text) compared with a plain string. `tasks contains "Test"` reads as "a task
 * containing Test", but `contains` on a list is element equality: it holds only if a
 * whole element is the text "Test", so the rule never fires and the agent is blocked
 * (or a guard never refuses). Warned with the filter that was meant (LANGUAGE.md §7).
 */

/** Operators that compare a list's elements whole with the value. */
const wholeElementOperators = new Set(['contains', 'not contains', '=', '!=', 'in', 'not in']);

/** The description of a list of records: "each represented as an object with fields …". */
const recordsDescription = /\b(objects?|dictionar(?:y|ies)|records?|dicts?)\b/i;

/** Whether the variable is a list whose elements are records, not plain text. */
function holdsRecords(variable: VariableDeclaration): boolean {
  if (variable.type.kind !== 'list' || variable.type.element !== 'text') return false;
  return variable.jsonText === true || recordsDescription.test(variable.description ?? '');
}

/** Texts of a value that cannot be a whole record (records are JSON objects). */
function plainTexts(constraint: CheckedConstraint): string[] {
  const value = constraint.value;
  const texts =
    value.kind === 'text'
      ? [value.value]
      : value.kind === 'list'
        ? value.elements.flatMap((element) => (element.kind === 'text' ? [element.value] : []))
        : [];
  return texts.filter((text) => !text.trim().startsWith('{'));
}

/** The field a filter most likely means: one named in the description, a name or title first. */
function likelyField(variable: VariableDeclaration): string {
  // A declared record names its fields (LANGUAGE.md §7): a text field named like a name first.
  const fields = variable.record?.fields ?? [];
  const declared =
    fields.find((field) => field.type.kind === 'text' && /name|title|subject/.test(field.name)) ??
    fields.find((field) => field.type.kind === 'text');
  if (declared !== undefined) return declared.name;
  const named = [
    ...(variable.description ?? '').matchAll(/['"`‘“]?\b([a-z][a-z0-9]*_[a-z0-9_]+)\b['"`’”]?/g),
  ].map((match) => match[1] ?? '');
  return (
    named.find((name) => /name|title|subject/.test(name)) ??
    named.find((name) => !/_id$/.test(name)) ??
    named[0] ??
    'field'
  );
}

/** Reports `record-list-compared-with-text` for every such constraint of the spec. */
export function reportRecordListComparisons(
  rules: readonly CheckedRule[],
  guards: readonly CheckedGuard[],
  diagnostics: DiagnosticBag,
): void {
  const patterns = [
    ...rules.flatMap((rule) => [...rule.states, ...(rule.action ? [rule.action] : [])]),
    ...guards.map((guard) => guard.pattern),
  ];
  for (const pattern of patterns) {
    for (const constraint of pattern.constraints) {
      // A path or filter already reads the records' fields.
      if (constraint.access !== undefined || constraint.binding !== undefined) continue;
      if (!wholeElementOperators.has(constraint.operator)) continue;
      if (!holdsRecords(constraint.variable)) continue;
      const [text] = plainTexts(constraint);
      if (text === undefined) continue;
      const name = constraint.variable.name;
      const quoted = printString(text);
      diagnostics.report(
        'record-list-compared-with-text',
        { range: constraint.node?.range },
        {
          variable: name,
          predicate: pattern.predicate.name,
          operator: constraint.operator,
          value: quoted,
          filter: `${name}[${likelyField(constraint.variable)} contains ${quoted}]`,
        },
      );
    }
  }
}
