export { IntentguardError, type IntentguardErrorOptions } from '../support/errors.js';
export { analyzeSpec } from './analyze.js';
export type {
  AnnotationNode,
  AtomNode,
  ComparisonOperator,
  ConfirmCategory,
  ConstraintNode,
  CountAtom,
  GivenNode,
  GuardNode,
  HeadNode,
  Identifier,
  ItemNode,
  Operator,
  PathStep,
  PatternAtom,
  RelativeDate,
  RuleNode,
  ScopedNegationAtom,
  SpecNode,
  SubjectFunction,
  SubjectNode,
  UniversalAtom,
  ValueNode,
} from './ast.js';
export {
  arithmeticPrecedence,
  confirmCategories,
  operatorPolarity,
  operators,
  relativeDates,
  ruleIds,
} from './ast.js';
export { canonicalSpecText } from './canonical-spec-text.js';
export { type CheckOptions, check, checkSpec, checkWithDiagnostics } from './checker/check.js';
export {
  analyzeComposition,
  type CheckedComposition,
  type CompositionDiagnostics,
  checkComposition,
  checkPolicy,
  compositionWarnings,
} from './checker/composition.js';
export {
  checkGrounding,
  type GroundingSources,
  groundingCodes,
} from './checker/grounding.js';
export type { Literal } from './checker/literal.js';
export { implies, literalKey, satisfiable } from './checker/satisfiability.js';
export type {
  CheckedAccess,
  CheckedArithmetic,
  CheckedComparison,
  CheckedConstraint,
  CheckedGiven,
  CheckedGuard,
  CheckedPattern,
  CheckedRule,
  CheckedScope,
  CheckedStep,
  ConfirmRequirement,
  ObjectiveCondition,
  Spec,
  SpecFromText,
} from './checker/spec.js';
export {
  answerPredicate,
  performanceLimit,
  perValueLimit,
  refusedPredicate,
  refusedPrefix,
  resolvePredicate,
  ruleStatePatterns,
  scopePatterns,
  statesGivens,
} from './checker/spec.js';
export {
  compareNumbers,
  Decimal,
  isDecimal,
  maxSignificantDigits,
  type NumberProblem,
  type NumberReading,
  type NumberValue,
  numbersEqual,
  numberText,
  readNumber,
} from './decimal.js';
export {
  type DiagnosticCode,
  type DiagnosticDefinition,
  diagnosticCatalog,
  diagnosticCodes,
  type Severity as DiagnosticSeverity,
} from './diagnostics/catalog.js';
export {
  createDiagnostic,
  type Diagnostic,
  DiagnosticBag,
  type DiagnosticData,
  hasErrors,
  sortDiagnostics,
} from './diagnostics/diagnostic.js';
export {
  diagnosticToJson,
  type RenderOptions,
  renderDiagnostic,
  renderDiagnostics,
} from './diagnostics/render.js';
export { extractSpecRegion, hasRuleArrow, type SpecRegion, specTagNames } from './extract.js';
export { defaultLimits, type Limits, resolveLimits } from './limits.js';
export { meaningKey } from './meaning-key.js';
export {
  allowedOperators,
  negateOperator,
  type OperatorInfo,
  operatorPhrase,
  operatorTable,
  type PositiveOperator,
} from './operators.js';
export { type ParsedSpec, type ParseOptions, parse, parseWithDiagnostics } from './parser.js';
export {
  print,
  printAnnotation,
  printAtom,
  printConstraint,
  printGiven,
  printGuard,
  printNumber,
  printRule,
  printString,
  printSubject,
  printValue,
} from './printer.js';
export { failure, IntentguardDiagnosticsError, type Result, success, unwrap } from './result.js';
export type {
  PredicateDeclaration,
  PredicateKind,
  RecordShape,
  ScalarTypeKind,
  Schema,
  VariableDeclaration,
  VariableType,
} from './schema-model.js';
export {
  callName,
  createSchema,
  declaresSettings,
  findField,
  findVariable,
  formatType,
  formatVariableType,
  hasObservedFacts,
  isObserved,
} from './schema-model.js';
export { LineIndex, type Position, type SourceRange } from './source-range.js';
export { closestNames, didYouMean, editDistance } from './suggest.js';
export {
  daysFromCivil,
  formatDate,
  formatDateTime,
  formatTime,
  parseDate,
  parseDateTime,
  parseTime,
} from './temporal.js';
export { normalizeText } from './text.js';
