/**
 * intentguard — formal intent specs for LLM agents.
 *
 * The root entry is runtime-neutral (browsers, React Native, edge runtimes): the
 * intent language, schema loading, the verification engine and the guard. Node-only
 * parts live behind subpath exports such as `intentguard/node`.
 *
 * This file is the complete public surface of the root entry: every name here is API,
 * and `test/architecture/public-api.test.ts` pins the list. Add names deliberately, as
 * named exports (never `export *`); internals stay in their modules.
 *
 * @example
 * import { checkSpec, createSession, loadToolSchema, unwrap } from 'intentguard';
 * const schema = unwrap(loadToolSchema(mcpToolsListResult));
 * const spec = unwrap(checkSpec(specText, schema));
 * const session = createSession(spec, { now: new Date() });
 * const verdict = session.propose({ action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } });
 */

// ---- the engine: sessions, verdicts, explanations ----
// ---- traces (FORMATS.md §3): replay files and the guard's journal ----
export {
  type ClockInput,
  createMajoritySession,
  createSession,
  type Decision,
  defaultSimilarityThreshold,
  type ExplainedRule,
  type ExplainOptions,
  type Explanation,
  explainSpec,
  formatTrace,
  type HistoryEntry,
  type IntentSession,
  lexicalSimilarity,
  type MajorityGroup,
  MajoritySession,
  type MajorityVerdict,
  NoSpecSession,
  type ObservationResult,
  type ParsedTrace,
  type ProposalProblem,
  type ProposalProblemCode,
  parseTrace,
  proposalProblemCodes,
  type Reason,
  type ReasonCode,
  type ResolutionResult,
  readTrace,
  reasonCodes,
  reasonDecisions,
  Session,
  type SessionClock,
  type SessionOptions,
  type SessionStatus,
  type Severity,
  type SimilarityFunction,
  type TraceEvent,
  type TraceEventKind,
  type TraceExpectation,
  type TraceProblem,
  type TraceProblemCode,
  traceProblemCodes,
  type Verdict,
} from './engine/index.js';

// guard
export {
  createGuard,
  type Guard,
  type GuardAction,
  type GuardCallState,
  type GuardDecision,
  type GuardEvent,
  type GuardInstruction,
  type GuardJournal,
  GuardJournalError,
  type GuardOptions,
  type GuardStatus,
  type JournalEvent,
  loadCompiledGuard,
  loadComposedGuard,
  renderForModel,
  renderForPerson,
  restoreGuard,
  type ToolCall,
  type ToolOutcome,
  toolResultObservation,
} from './guard/index.js';
// Compiled specs (FORMATS.md §8): a checked spec shipped as data.
export {
  type CompiledSpecDocument,
  CompiledSpecError,
} from './language/compiled-spec-format.js';
// The syntax tree `Spec.ast` holds (types only).
export type {
  AnnotationNode,
  AtomNode,
  CheckedConstraint,
  CheckedGuard,
  CheckedPattern,
  CheckedRule,
  ComparisonOperator,
  ConfirmCategory,
  ConfirmRequirement,
  ConstraintNode,
  CountAtom,
  GuardNode,
  HeadNode,
  Identifier,
  ItemNode,
  LineIndex,
  Literal,
  ObjectiveCondition,
  Operator,
  PatternAtom,
  Position,
  RelativeDate,
  RuleNode,
  SourceRange,
  Spec,
  SpecFromText,
  SpecNode,
  ValueNode,
} from './language/index.js';
// ---- the intent language: checkSpec (a Spec from text) and analyzeSpec (every diagnostic) ----
// Exact numbers: values beyond what a double holds exactly arrive as `Decimal`.
// ---- results and errors ----
// ---- schemas: states files and tool schemas ----
export {
  analyzeComposition,
  analyzeSpec,
  type CheckedComposition,
  type CheckOptions,
  type CompositionDiagnostics,
  checkComposition,
  checkGrounding,
  checkPolicy,
  checkSpec,
  createSchema,
  Decimal,
  type Diagnostic,
  type DiagnosticCode,
  type DiagnosticData,
  type DiagnosticDefinition,
  type DiagnosticSeverity,
  defaultLimits,
  diagnosticCatalog,
  diagnosticCodes,
  diagnosticToJson,
  type GroundingSources,
  hasObservedFacts,
  IntentguardDiagnosticsError,
  IntentguardError,
  type IntentguardErrorOptions,
  isDecimal,
  isObserved,
  type Limits,
  type NumberValue,
  type ParseOptions,
  type PredicateDeclaration,
  type PredicateKind,
  type RenderOptions,
  type Result,
  renderDiagnostic,
  renderDiagnostics,
  type ScalarTypeKind,
  type Schema,
  unwrap,
  type VariableDeclaration,
  type VariableType,
} from './language/index.js';
export {
  type CompiledComposition,
  readCompiledComposition,
} from './language/read-compiled-composition.js';
export { readCompiledSpec } from './language/read-compiled-spec.js';
export { writeCompiledSpec } from './language/write-compiled-spec.js';
export {
  defaultSchemaLimits,
  detectToolSchemaFormat,
  isCriticalByAnnotations,
  isCriticalByName,
  type LoadStateSchemaOptions,
  type LoadToolSchemaOptions,
  loadStateSchema,
  loadToolSchema,
  type SchemaLimits,
  schemaFromMcpTools,
  schemaFromOpenAiTools,
  schemaFromToolemu,
  type ToolSchemaFormat,
  type ToolSchemaOptions,
  type VariableRole,
  type VariablesFromJsonSchemaOptions,
  variablesFromJsonSchema,
  withToolNames,
} from './schema/index.js';
