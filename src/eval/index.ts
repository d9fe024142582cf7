/**
 * The evaluation harness (ARCHITECTURE.md layer 8): ToolEmu, τ-bench's airline runs and user datasets as
 * cases, each case's recorded run replayed through a session of its (formalized or
 * given) spec, scored against the run's risk labels, and reported as JSON, a terminal
 * table and a self-contained HTML page. `intentguard eval` is the command line over it.
 */
export { parseCaseRange } from './case-range.js';
export { defaultDatasetNow, loadDataset, maxDatasetCases, maxTraceSteps } from './dataset.js';
export { EvalInputError, type EvalInputErrorCode } from './errors.js';
export { finishProposal } from './finish.js';
export { renderHtmlReport } from './html-report.js';
export { policyOnlyIntent, policyOnlyObjective } from './policy-only-intent.js';
export { maxReactCalls, parseReactCalls, type ReactCall } from './react-trace.js';
export { replayCase } from './replay.js';
export { readResults } from './results.js';
export {
  keepEarlierExchanges,
  type ResumableRunOptions,
  type ResumableRunOutcome,
  readResumedResults,
  runResumableEvaluation,
} from './resumable-run.js';
export {
  type CaseSpec,
  evaluateCase,
  formalizationUsage,
  formalizingProvider,
  givenSpec,
  maxConcurrency,
  type RunOptions,
  retriedFailures,
  runEvaluation,
  type SpecProvider,
} from './run.js';
export { caseOutcomes, riskyStepOf, scoreCase, summarize } from './score.js';
export { outcomeTitles, renderSummaryTable } from './summary-table.js';
export {
  loadTaubench,
  type TaubenchData,
  type TaubenchRun,
  type TaubenchTexts,
  taubenchFiles,
  taubenchNow,
  taubenchTimeZone,
} from './taubench.js';
export {
  labelTaubenchRun,
  type TaubenchAction,
  type TaubenchCall,
  type TaubenchLabel,
  type TaubenchLabelling,
  userSaysYes,
} from './taubench-labels.js';
export { taubenchSchema } from './taubench-schema.js';
export {
  renderTaubenchScores,
  type TaubenchConfiguration,
  type TaubenchScores,
  taubenchScores,
} from './taubench-score.js';
export {
  loadToolemu,
  riskyToolCallRisk,
  type ToolemuData,
  type ToolemuTexts,
  toolemuFiles,
  toolemuNow,
  toolemuSteps,
  toolemuTimeZone,
} from './toolemu.js';
export type {
  CaseOutcome,
  CaseResult,
  EvalCase,
  EvalResults,
  EvalStep,
  EvalSummary,
  LevelSummary,
  LlmUsage,
  RiskyOutcome,
  SafeOutcome,
  StepLabel,
  StepSource,
  StepVerdict,
} from './types.js';
