/**
 * The one catalog of diagnostic codes. Codes are stable public API (tools and tests
 * match on them); messages and hints are templates whose `{name}` placeholders are
 * filled from the diagnostic's data. Add codes, never rename or reuse them.
 */

export type Severity = 'error' | 'warning';

export interface DiagnosticDefinition {
  readonly severity: Severity;
  readonly message: string;
  readonly hint?: string;
}

export const diagnosticCatalog = {
  // Misuse of the library: a parameter of the wrong kind (no range: not in the spec)
  'invalid-argument': {
    severity: 'error',
    message: "{function}: '{parameter}' must be {expected}, not {actual}.",
    hint: 'This is a mistake in the calling code, not in the spec.',
  },
  // Input and limits
  'input-too-long': {
    severity: 'error',
    message: 'The spec is {length} characters long; at most {limit} are accepted.',
    hint: 'Split the instruction into smaller tasks.',
  },
  'too-many-items': {
    severity: 'error',
    message: 'The spec has more than {limit} rules and guards; the rest were not read.',
  },
  'too-many-atoms': {
    severity: 'error',
    message: 'This rule body has more than {limit} atoms.',
  },
  'too-many-constraints': {
    severity: 'error',
    message: 'This pattern has more than {limit} constraints.',
  },
  'nesting-too-deep': {
    severity: 'error',
    message: 'Lists are nested more than {limit} levels deep.',
  },
  'literal-too-long': {
    severity: 'error',
    message: 'This {what} is {length} characters long; at most {limit} are accepted.',
  },
  'list-too-long': {
    severity: 'error',
    message: 'This list has more than {limit} elements.',
  },
  'too-many-diagnostics': {
    severity: 'error',
    message: 'More than {limit} problems were found; the rest are not shown.',
  },
  'too-many-warnings': {
    severity: 'warning',
    message: 'More than {limit} warnings were found; the rest are not shown.',
  },
  'extracted-spec': {
    severity: 'warning',
    message: 'Took the spec from {source}; the text around it was ignored.',
    hint: 'Give the spec alone, without fences, tags or prose.',
  },

  // Lexical structure
  'unexpected-character': {
    severity: 'error',
    message: "Unexpected character '{character}'.",
    // Given for a `-` inside a name (`get-sum`): the schema's rewrite (lexer.ts).
    hint: '{hint}',
  },
  'unterminated-string': {
    severity: 'error',
    message: 'This string has no closing quote before the end of the line.',
    hint: 'Close it with {quote}.',
  },
  'invalid-escape': {
    severity: 'error',
    message: "'\\{escape}' is not a valid escape in a string.",
    hint: 'Use \\", \\\', \\\\, \\n, \\t or \\u{…}.',
  },
  'invalid-number': {
    severity: 'error',
    message: "'{text}' is not a valid number.",
    hint: '{hint}',
  },
  'number-with-comma': {
    severity: 'error',
    message: "'{text}' looks like a number with a thousands separator.",
    hint: 'Write {suggestion} (or {underscored}); a comma separates constraints.',
  },
  'invalid-date': {
    severity: 'error',
    message: "'{text}' is not a valid {what}.",
    hint: 'Dates are YYYY-MM-DD, times HH:MM or HH:MM:SS (24-hour), date-times YYYY-MM-DDTHH:MM.',
  },
  'unterminated-regex': {
    severity: 'error',
    message: 'This regular expression has no closing slash.',
    hint: 'Write it as /pattern/flags and escape a slash inside it as \\/.',
  },
  'invalid-regex': {
    severity: 'error',
    message: 'Invalid regular expression /{pattern}/{flags}: {reason}',
    hint: '{hint}',
  },

  // Syntax
  'unexpected-token': {
    severity: 'error',
    message: 'Expected {expected}, found {found}.',
  },
  'missing-arrow': {
    severity: 'error',
    message: "This rule has no '->' before its head.",
    hint: 'A rule is written body -> Head, e.g. A(x = 1) & B -> Goal.',
  },
  'head-with-constraints': {
    severity: 'error',
    message: "The head '{name}' has constraints; a head is an objective name or Done.",
    hint: 'Move the conditions into the body: … & {name}Info(…) -> {name}.',
  },
  'multiple-heads': {
    severity: 'error',
    message: 'A rule has exactly one head.',
    hint: 'Write one rule per head, each with the same body.',
  },
  'unquoted-text': {
    severity: 'error',
    message: 'Text of several words must be quoted.',
    hint: 'Write {suggestion}.',
  },
  'done-in-body': {
    severity: 'error',
    message: "'Done' can only be a rule head.",
    hint: 'To require what Done needs, repeat its conditions or name the objectives it depends on.',
  },
  'unknown-annotation': {
    severity: 'error',
    message: "Unknown annotation '@{name}'.",
    hint: 'Known annotations are @confirm and @repeat.',
  },
  'invalid-annotation': {
    severity: 'error',
    message: 'Invalid arguments for @{name}: {reason}',
    hint: '{hint}',
  },
  'annotation-on-guard': {
    severity: 'error',
    message: 'Annotations apply to rules, not to guards.',
    hint: 'A confirm guard already asks the user; a reject guard always refuses.',
  },
  'dangling-annotation': {
    severity: 'error',
    message: 'This annotation is not followed by a rule.',
  },
  'duplicate-annotation': {
    severity: 'error',
    message: '@{name} is given twice for this rule.',
  },

  // Names and types (checker)
  'duplicate-label': {
    severity: 'error',
    message: "The label '{label}' is used by more than one rule.",
    hint: 'Labels identify rules in feedback and traces; give each rule its own.',
  },
  'unknown-predicate': {
    severity: 'error',
    message: "Unknown predicate '{name}'.",
    hint: '{hint}',
  },
  'unknown-objective': {
    severity: 'error',
    message: "'{name}' is neither a predicate of the schema nor the head of any rule.",
    hint: '{hint}',
  },
  'unknown-variable': {
    severity: 'error',
    message: "'{predicate}' has no variable '{name}'.",
    hint: '{hint}',
  },
  'type-mismatch': {
    severity: 'error',
    message: "'{variable}' is {type}, but {value} is {valueType}.",
    hint: '{hint}',
  },
  'operator-not-allowed': {
    severity: 'error',
    message: "'{operator}' is not defined for '{variable}', which is {type}.",
    hint: 'Operators for {type}: {allowed}.',
  },
  'invalid-path': {
    severity: 'error',
    message: "{what} cannot be applied to '{subject}', which is {type}.",
    hint: '{hint}',
  },
  'invalid-index': {
    severity: 'error',
    message: 'A position in a list must be a whole number; found {index}.',
    hint: 'Write list[0] for the first element, list[1] for the second, list[-1] for the last.',
  },
  'invalid-map': {
    severity: 'error',
    message: "{what} reads a json object keyed by ids, but '{subject}' is {type}.",
    hint: '{hint}',
  },
  'invalid-aggregate': {
    severity: 'error',
    message: "{function}(…) adds up or orders numbers, but '{subject}' is {type}.",
    hint: '{hint}',
  },
  'unbound-comparison': {
    severity: 'error',
    message:
      "'{binding}' in the comparison '{comparison}' is bound by no other atom of the {where}.",
    hint: 'A comparison binds nothing: bind {binding} in a pattern of the {where} (field = {binding}), then compare it.',
  },
  'constant-comparison': {
    severity: 'error',
    message:
      "The comparison '{comparison}' uses no binding, so it says nothing about the proposal.",
    hint: 'Compare bindings ($x) that patterns of the {where} bind; to bound a field, write it in its pattern (field <= 600).',
  },
  'comparison-type-mismatch': {
    severity: 'error',
    message:
      "In '{comparison}', '{left}' is {leftType} and '{right}' is {rightType}: they do not compare.",
    hint: '{hint}',
  },
  'unbound-variable': {
    severity: 'error',
    message: "'{binding}' is used before anything binds it.",
    hint: '{hint}',
  },
  'binding-type-mismatch': {
    severity: 'error',
    message:
      "'{binding}' holds {bound} values (bound by {binder}), but '{subject}' is compared with it as {type}.",
    hint: 'Compare a binding only with values of the type it was bound to.',
  },
  'json-date-binding': {
    severity: 'warning',
    message:
      '{problem}: a json value is never a {type} (json writes dates and times as text), so in a rule this comparison never holds, and in a guard it fires on every value.',
    hint: 'Read the json value as a {type}: {fix}.',
  },
  'binding-in-filter': {
    severity: 'error',
    message:
      "'{binding}' cannot be bound inside {where}: such a filter tests elements, it does not stand for one of them.",
    hint: 'Bind {binding} before it (field = {binding}) so that the filter compares with it, or bind it in a filter outside count, len, each and not: list[field = {binding}].',
  },
  'json-field-not-described': {
    severity: 'warning',
    message:
      "The field '{field}' of '{variable}' is not mentioned in the schema's description of it; the constraint is checked only when a value has that field.",
    hint: 'Check the field name against the tool documentation.',
  },
  'enum-value-not-member': {
    severity: 'error',
    message: "{value} is not a value of '{variable}'.",
    hint: 'Its values are: {values}.',
  },
  'bare-text-value': {
    severity: 'warning',
    message: 'The unquoted name {value} is taken as the text "{value}" for \'{variable}\'.',
    hint: 'Quote text values: {variable} = "{value}".',
  },
  'objective-with-constraints': {
    severity: 'error',
    message: "'{name}' is an objective, so it cannot have constraints.",
    hint: '{hint}',
  },
  'count-on-predicate': {
    severity: 'error',
    message:
      "'{name}' is a predicate; a count like '{name} {operator} {count}' applies to objectives.",
    hint: 'Constrain one of its variables instead: {name}(variable {operator} {count}).',
  },
  'invalid-count': {
    severity: 'error',
    message: 'An objective count must be a whole number of zero or more; found {count}.',
  },
  'predicate-as-head': {
    severity: 'error',
    message: "'{name}' is {kind} of the schema and cannot be a rule head.",
    hint: 'Heads name objectives; use a new name such as {suggestion}.',
  },
  'multiple-action-patterns': {
    severity: 'error',
    message:
      "This body needs both '{first}' and '{second}', but a proposal carries only one action.",
    hint: 'Split it into two rules, chaining them through an objective.',
  },
  'disjunction-outside-parentheses': {
    severity: 'error',
    message: "'|' separates alternatives only inside parentheses.",
    hint: 'Write (A | B) & C: one rule per alternative.',
  },
  'empty-scope': {
    severity: 'error',
    message: '{what} has no atom.',
    hint: 'Write the atoms inside it: not (A(x = $v) & B(y = $v)), forall(A(x = $v) => B(y = $v)).',
  },
  'forall-without-arrow': {
    severity: 'error',
    message: "'forall' needs '=>' between what it ranges over and what must hold for each.",
    hint: 'Write forall(A(x = $v) => B(y = $v)): every $v that A gives must meet B.',
  },
  'forall-binds': {
    severity: 'error',
    message: "The right side of 'forall' binds {binding}, which the left side does not bind.",
    hint: 'Bind {binding} on the left of =>, or say "some" with not (…): the right side only compares.',
  },
  'action-in-scope': {
    severity: 'error',
    message: "'{name}' is an action: {where} ranges over state and results, not over the proposal.",
    hint: "Use the tool's result ({name}Result) there, or put the action in the rule body.",
  },
  'objective-in-scope': {
    severity: 'error',
    message: "The objective '{name}' does not depend on bindings: it cannot stand inside {where}.",
    hint: 'Write it in the rule body: {name} or not {name}.',
  },
  'disjunction-in-scope': {
    severity: 'error',
    message: "'|' cannot stand inside {where}.",
    hint: 'Write one scope per alternative: not (A & C) & not (B & C).',
  },
  'too-many-alternatives': {
    severity: 'error',
    message: 'This rule stands for more than {limit} alternatives.',
    hint: 'Split it into several rules.',
  },
  'negated-action': {
    severity: 'error',
    message:
      "'not {name}(...)' negates an action: a rule is performed by the action it names, never by the absence of one.",
    hint: 'Constrain the action with negated operators (!=, not in, not contains) or absent(arg).',
  },
  'absent-outside-action': {
    severity: 'error',
    message:
      "absent({name}) applies to an argument of an action, and '{predicate}' is not an action.",
    hint: 'Observed state that was never set makes every constraint on it false; use not {predicate}(...) instead.',
  },
  'repeat-per-without-action': {
    severity: 'error',
    message:
      "@repeat(per: {name}) needs an action pattern with the argument '{name}' in the rule's body.",
    hint: '{hint}',
  },
  'missing-done': {
    severity: 'error',
    message: 'The spec has no rule with head Done, so the task could never be finished.',
    hint: 'Add a rule such as Goal -> Done.',
  },
  'cyclic-objective': {
    severity: 'error',
    message: "The objective '{name}' depends on itself: {cycle}.",
    hint: 'An objective can only depend on objectives achieved before it.',
  },
  'contradictory-constraints': {
    severity: 'error',
    message:
      "The constraints on '{variable}' in '{predicate}' can never hold together: {constraints}.",
    hint: 'A single instance must satisfy all constraints of one pattern.',
  },
  'action-in-done-rule': {
    severity: 'error',
    message:
      "The Done rule needs the action '{name}', but Done is judged on the current state, where no action is pending.",
    hint: 'Achieve an objective with the action and require that: … & {name}(…) -> {name}Done, then {name}Done -> Done.',
  },
  'annotation-ignored': {
    severity: 'warning',
    message: '@{name} has no effect on a rule with head Done.',
    hint: 'Done rules are never performed; annotate the rule of the action instead.',
  },

  // Reachability (checker)
  'unreachable-rule': {
    severity: 'warning',
    message: 'Rule {rule} can never fire: {reason}.',
  },
  'guard-shadows-rule': {
    severity: 'warning',
    message:
      "The reject guard on '{predicate}' refuses every action that rule {rule} needs, so the rule can never fire.",
    hint: 'Narrow the guard or remove the rule.',
  },
  'unused-branch': {
    severity: 'warning',
    message: "The objective '{name}' is produced but no rule uses it, so it does not lead to Done.",
    hint: 'Reference it in the body of a rule that leads to Done, or remove its rules.',
  },
  'duplicate-rule': {
    severity: 'warning',
    message: 'Rule {rule} repeats rule {other}.',
  },

  // Meaning (checker): specs that check but cannot mean what they say
  'record-list-compared-with-text': {
    severity: 'warning',
    message:
      "'{variable}' of '{predicate}' is a list of records, so '{operator} {value}' compares whole records with the text {value}, which no record equals.",
    hint: 'To match a field of the records, filter them (Language v2): {filter}; in version 1, `{variable} matches /…/` searches inside the elements.',
  },

  // Policies and what the user said (LANGUAGE.md §8)
  'done-in-policy': {
    severity: 'error',
    message: "A policy has no Done rule: when the task is done is the intent's to say.",
    hint: 'A policy permits actions (rules with an action in the body) and refuses them (reject and confirm guards); remove this rule, or move it to the intent.',
  },
  'given-in-policy': {
    severity: 'error',
    message: "A policy states no facts: what the user said belongs to each task's intent.",
    hint: 'Move the given line to the intent; the policy reads {name} like any state.',
  },
  'refused-in-policy': {
    severity: 'error',
    message: "'refused {name}' reads the policy's own refusals: only an intent can use it.",
    hint: 'Constrain {name} directly in a guard or a permission of the policy.',
  },
  'given-not-user': {
    severity: 'error',
    message:
      '\'{name}\' is not a fact the user states: given is only for state predicates the schema marks "source": "user".',
    hint: '{hint}',
  },
  'given-not-a-fact': {
    severity: 'error',
    message: 'A given fact sets values ({problem}).',
    hint: 'Write the value the user stated, e.g. given TripPurpose(reason = "a family birthday").',
  },
  'refused-not-action': {
    severity: 'error',
    message: "'refused {name}' needs an action of the schema; '{name}' is {what}.",
    hint: '{hint}',
  },
  'foreign-objective': {
    severity: 'error',
    message:
      "'{name}' is an objective of the {owner}; the intent and the policy each count only their own objectives.",
    hint: 'Name an objective this file produces, or constrain the state or action it stands for.',
  },
  'shared-objective': {
    severity: 'error',
    message:
      "'{name}' is the head of rules in both the intent and the policy; each side's objectives are its own.",
    hint: 'Rename the objective in one of the two files.',
  },
  'policy-conflict': {
    severity: 'warning',
    message:
      "Rule {rule} needs '{name}', which the policy refuses {how}: the task cannot be done under the policy.",
    hint: 'Check the intent against the instruction; if it is right, the task needs what the operator does not allow.',
  },
  'empty-policy': {
    severity: 'warning',
    message:
      'The policy has no permission (a rule with an action in its body) and no guard: it allows everything.',
    hint: 'Write the actions the operator permits as rules (conditions & action -> Objective) and what it forbids as reject guards.',
  },

  // Trust (checker)
  'no-observed-state': {
    severity: 'warning',
    message:
      "The schema marks no predicate or variable observed, so the agent can claim in its own updates every state this spec requires ('{name}' here, and the rest).",
    hint: 'Mark the facts the app reports (availability, balances, result screens) with "observed": true in the schema; only observations can set them.',
  },

  // Grounding (checkGrounding, with the instruction): values the user did not give
  'ungrounded-literal': {
    severity: 'warning',
    message: 'The {what} {value} is not given by the instruction (nor by the policy).',
    hint: '{hint}',
  },
  'unused-instruction-number': {
    severity: 'warning',
    message: 'The instruction states {value}, but the spec uses it nowhere.',
    hint: 'An amount, count or limit the user gave belongs in a constraint, such as amount <= {value}.',
  },
  'unpinned-critical-action': {
    severity: 'warning',
    message:
      "Rule {rule} allows the critical action '{name}' with any arguments and without asking the user.",
    hint: 'Constrain its arguments with the values the instruction gives, or put @confirm on the rule.',
  },
  'confirmation-not-required': {
    severity: 'warning',
    message:
      'The instruction asks for approval ("{phrase}"), but no rule has @confirm and no guard is a confirm guard.',
    hint: 'Put @confirm on the rule of the action the user wants to approve.',
  },

  // Schemas
  'schema-invalid-json': {
    severity: 'error',
    message: 'The schema is not valid JSON: {reason}',
  },
  /** A value the field does not allow (`"kind": "widget"`, an empty enum), or a loader failure. */
  'schema-invalid': {
    severity: 'error',
    message: '{reason}',
    hint: '{hint}',
  },
  /** A value of the wrong JSON type: `"variables": {}` where an array belongs. */
  'schema-wrong-type': {
    severity: 'error',
    message: '{reason}',
    hint: '{hint}',
  },
  /** Something every entry needs is absent: a name, a type, `variables`, `enum_values`. */
  'schema-missing-field': {
    severity: 'error',
    message: '{reason}',
    hint: '{hint}',
  },
  /** A field that does not apply here: keys or `observed` on an action, `critical` on a state. */
  'schema-misplaced-field': {
    severity: 'error',
    message: '{reason}',
    hint: '{hint}',
  },
  /** Beyond a limit of `SchemaLimits` (sizes, counts, nesting, reference chains); the rest is not read. */
  'schema-too-large': {
    severity: 'error',
    message: '{reason}',
    hint: '{hint}',
  },
  /** A predicate or tool named `Done`, the head that finishes every task. */
  'schema-reserved-name': {
    severity: 'error',
    message: '{reason}',
    hint: '{hint}',
  },
  /** A key (`key_arg_name`) that names no variable of its predicate. */
  'schema-unknown-key': {
    severity: 'error',
    message: '{reason}',
    hint: '{hint}',
  },
  /** A local `$ref` that points to no schema in its document. */
  'schema-unknown-reference': {
    severity: 'error',
    message: '{reason}',
    hint: '{hint}',
  },
  /** A tool schema given where a states file belongs. */
  'schema-wrong-format': {
    severity: 'error',
    message: '{reason}',
    hint: '{hint}',
  },
  'schema-unknown-type': {
    severity: 'error',
    message: "Unknown variable type '{type}'.",
    hint: 'Types are Text, Number, Boolean, Date, Time, DateTime, Enum (with enum_values), List<Text>, List<Number>.',
  },
  'schema-invalid-name': {
    severity: 'error',
    message: "'{name}' is not a valid {what} name.",
    hint: 'Names are letters, digits and underscores, not starting with a digit.',
  },
  'schema-duplicate': {
    severity: 'error',
    message: "'{name}' is declared more than once.",
  },
  'schema-unrecognized-tools': {
    severity: 'error',
    message: 'Not a recognised tool schema: {reason}',
    hint: 'Accepted: ToolEmu toolkits, an MCP tools/list result, an OpenAI function-calling tool array.',
  },
  'schema-type-approximated': {
    severity: 'warning',
    message: "'{name}' has the type {from}, kept as {to}.",
  },
} as const satisfies Record<string, DiagnosticDefinition>;

export type DiagnosticCode = keyof typeof diagnosticCatalog;

/** The schema problems told by a reason and a hint (`LoadContext.problem`), one code per kind. */
export type SchemaProblemCode =
  | 'schema-invalid'
  | 'schema-wrong-type'
  | 'schema-missing-field'
  | 'schema-misplaced-field'
  | 'schema-too-large'
  | 'schema-reserved-name'
  | 'schema-unknown-key'
  | 'schema-unknown-reference'
  | 'schema-wrong-format';

export const diagnosticCodes = /* @__PURE__ */ Object.keys(diagnosticCatalog) as DiagnosticCode[];
