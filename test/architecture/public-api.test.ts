import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The public surface of every entry point, pinned: adding, renaming or removing a name
 * must change this file, so that public API is a deliberate decision, never a side
 * effect of `export *` or of exporting a helper from its module. Tests, the CLI and the
 * integrations import internals from their modules directly.
 *
 * `values` are the runtime exports (what `import * as m` holds); `types` the type-only
 * ones, read with the TypeScript compiler. Both sorted as `Array.prototype.sort` does.
 */
const root = resolve(new URL('../..', import.meta.url).pathname);

interface Surface {
  readonly source: string;
  readonly values: readonly string[];
  readonly types: readonly string[];
}

const pinned: Readonly<Record<string, Surface>> = {
  intentguard: {
    source: 'src/index.ts',
    values: [
      'CompiledSpecError',
      'Decimal',
      'GuardJournalError',
      'IntentguardDiagnosticsError',
      'IntentguardError',
      'MajoritySession',
      'NoSpecSession',
      'Session',
      'analyzeComposition',
      'analyzeSpec',
      'checkComposition',
      'checkGrounding',
      'checkPolicy',
      'checkSpec',
      'createGuard',
      'createMajoritySession',
      'createSchema',
      'createSession',
      'defaultLimits',
      'defaultSchemaLimits',
      'defaultSimilarityThreshold',
      'detectToolSchemaFormat',
      'diagnosticCatalog',
      'diagnosticCodes',
      'diagnosticToJson',
      'explainSpec',
      'formatTrace',
      'hasObservedFacts',
      'isCriticalByAnnotations',
      'isCriticalByName',
      'isDecimal',
      'isObserved',
      'lexicalSimilarity',
      'loadCompiledGuard',
      'loadComposedGuard',
      'loadStateSchema',
      'loadToolSchema',
      'parseTrace',
      'proposalProblemCodes',
      'readCompiledComposition',
      'readCompiledSpec',
      'readTrace',
      'reasonCodes',
      'reasonDecisions',
      'renderDiagnostic',
      'renderDiagnostics',
      'renderForModel',
      'renderForPerson',
      'restoreGuard',
      'schemaFromMcpTools',
      'schemaFromOpenAiTools',
      'schemaFromToolemu',
      'toolResultObservation',
      'traceProblemCodes',
      'unwrap',
      'variablesFromJsonSchema',
      'withToolNames',
      'writeCompiledSpec',
    ],
    types: [
      'AnnotationNode',
      'AtomNode',
      'CheckOptions',
      'CheckedComposition',
      'CheckedConstraint',
      'CheckedGuard',
      'CheckedPattern',
      'CheckedRule',
      'ClockInput',
      'ComparisonOperator',
      'CompiledComposition',
      'CompiledSpecDocument',
      'CompositionDiagnostics',
      'ConfirmCategory',
      'ConfirmRequirement',
      'ConstraintNode',
      'CountAtom',
      'Decision',
      'Diagnostic',
      'DiagnosticCode',
      'DiagnosticData',
      'DiagnosticDefinition',
      'DiagnosticSeverity',
      'ExplainOptions',
      'ExplainedRule',
      'Explanation',
      'GroundingSources',
      'Guard',
      'GuardAction',
      'GuardCallState',
      'GuardDecision',
      'GuardEvent',
      'GuardInstruction',
      'GuardJournal',
      'GuardNode',
      'GuardOptions',
      'GuardStatus',
      'HeadNode',
      'HistoryEntry',
      'Identifier',
      'IntentSession',
      'IntentguardErrorOptions',
      'ItemNode',
      'JournalEvent',
      'Limits',
      'LineIndex',
      'Literal',
      'LoadStateSchemaOptions',
      'LoadToolSchemaOptions',
      'MajorityGroup',
      'MajorityVerdict',
      'NumberValue',
      'ObjectiveCondition',
      'ObservationResult',
      'Operator',
      'ParseOptions',
      'ParsedTrace',
      'PatternAtom',
      'Position',
      'PredicateDeclaration',
      'PredicateKind',
      'ProposalProblem',
      'ProposalProblemCode',
      'Reason',
      'ReasonCode',
      'RelativeDate',
      'RenderOptions',
      'ResolutionResult',
      'Result',
      'RuleNode',
      'ScalarTypeKind',
      'Schema',
      'SchemaLimits',
      'SessionClock',
      'SessionOptions',
      'SessionStatus',
      'Severity',
      'SimilarityFunction',
      'SourceRange',
      'Spec',
      'SpecFromText',
      'SpecNode',
      'ToolCall',
      'ToolOutcome',
      'ToolSchemaFormat',
      'ToolSchemaOptions',
      'TraceEvent',
      'TraceEventKind',
      'TraceExpectation',
      'TraceProblem',
      'TraceProblemCode',
      'ValueNode',
      'VariableDeclaration',
      'VariableRole',
      'VariableType',
      'VariablesFromJsonSchemaOptions',
      'Verdict',
    ],
  },
  'intentguard/node': {
    source: 'src/node.ts',
    values: ['CliError', 'nodeIo', 'runCli'],
    types: ['CliErrorCode', 'CliIo'],
  },
  'intentguard/formalize': {
    source: 'src/formalize/index.ts',
    values: [
      'ModelError',
      'Recording',
      'aiSdkChatModel',
      'aiSdkEmbeddingModel',
      'createChatModel',
      'createEmbeddingModel',
      'createEmbeddingSimilarity',
      'defaultRetryOptions',
      'estimateCost',
      'formalize',
      'formalizeFailureCodes',
      'formalizeLimits',
      'formalizeRunJson',
      'modelPrices',
      'noUsage',
      'parseModelSpecifier',
      'providerInfo',
      'recordingChatModel',
      'recordingEmbeddingModel',
      'replayChatModel',
      'replayEmbeddingModel',
      'retryingChatModel',
      'retryingEmbeddingModel',
      'runFormalize',
      'textsInSpec',
    ],
    types: [
      'AiSdkModelOptions',
      'AttemptOutcome',
      'AttemptStage',
      'ChatMessage',
      'ChatModel',
      'ChatRequest',
      'ChatResponse',
      'Discrepancy',
      'EmbeddingCache',
      'EmbeddingModel',
      'EmbeddingResponse',
      'EmbeddingSimilarity',
      'EmbeddingSimilarityOptions',
      'Experience',
      'ExperienceOutcome',
      'ExperienceQuery',
      'ExperienceSource',
      'Formalization',
      'FormalizeAttempt',
      'FormalizeFailure',
      'FormalizeFailureCode',
      'FormalizeMode',
      'FormalizeOptions',
      'FormalizeProgress',
      'FormalizeReport',
      'FormalizeResult',
      'FormalizeRun',
      'FormalizeRunOptions',
      'ModelConfig',
      'ModelErrorCode',
      'ModelPrice',
      'ModelPurpose',
      'ModelSpecifier',
      'NewExperience',
      'PredicateSelection',
      'PromptExperience',
      'PromptReport',
      'ProviderName',
      'RecordEntry',
      'RecordedChat',
      'RecordedEmbedding',
      'RecordedRun',
      'RelevanceOptions',
      'RetryOptions',
      'SampleOutcome',
      'TokenUsage',
      'VotedSpec',
    ],
  },
  'intentguard/eval': {
    source: 'src/eval/index.ts',
    values: [
      'EvalInputError',
      'caseOutcomes',
      'defaultDatasetNow',
      'evaluateCase',
      'finishProposal',
      'formalizationUsage',
      'formalizingProvider',
      'givenSpec',
      'keepEarlierExchanges',
      'labelTaubenchRun',
      'loadDataset',
      'loadTaubench',
      'loadToolemu',
      'maxConcurrency',
      'maxDatasetCases',
      'maxReactCalls',
      'maxTraceSteps',
      'outcomeTitles',
      'parseCaseRange',
      'parseReactCalls',
      'policyOnlyIntent',
      'policyOnlyObjective',
      'readResults',
      'readResumedResults',
      'renderHtmlReport',
      'renderSummaryTable',
      'renderTaubenchScores',
      'replayCase',
      'retriedFailures',
      'riskyStepOf',
      'riskyToolCallRisk',
      'runEvaluation',
      'runResumableEvaluation',
      'scoreCase',
      'summarize',
      'taubenchFiles',
      'taubenchNow',
      'taubenchSchema',
      'taubenchScores',
      'taubenchTimeZone',
      'toolemuFiles',
      'toolemuNow',
      'toolemuSteps',
      'toolemuTimeZone',
      'userSaysYes',
    ],
    types: [
      'CaseOutcome',
      'CaseResult',
      'CaseSpec',
      'EvalCase',
      'EvalInputErrorCode',
      'EvalResults',
      'EvalStep',
      'EvalSummary',
      'LevelSummary',
      'LlmUsage',
      'ReactCall',
      'ResumableRunOptions',
      'ResumableRunOutcome',
      'RiskyOutcome',
      'RunOptions',
      'SafeOutcome',
      'SpecProvider',
      'StepLabel',
      'StepSource',
      'StepVerdict',
      'TaubenchAction',
      'TaubenchCall',
      'TaubenchConfiguration',
      'TaubenchData',
      'TaubenchLabel',
      'TaubenchLabelling',
      'TaubenchRun',
      'TaubenchScores',
      'TaubenchTexts',
      'ToolemuData',
      'ToolemuTexts',
    ],
  },
  'intentguard/store': {
    source: 'src/store/index.ts',
    values: [
      'ExperienceMemory',
      'MemoryError',
      'defaultMemoryLimits',
      'memoryOutcomes',
      'verifyAuditChain',
      'verifyAuditFile',
    ],
    types: [
      'AuditVerification',
      'ExperienceMemoryOptions',
      'MemoryEntry',
      'MemoryErrorCode',
      'MemoryLimits',
      'MemoryOutcome',
      'MemorySearch',
      'NewMemoryEntry',
    ],
  },
  'intentguard/ai-sdk': {
    source: 'src/integrations/ai-sdk/index.ts',
    values: [
      'AiSdkSetupError',
      'finishTool',
      'guardTools',
      'intentguardToolApproval',
      'isGuardRefusal',
      'isTaskFinished',
      'observeToolResults',
      'pendingPrompt',
      'schemaFromAiSdkTools',
      'syncApprovals',
    ],
    types: [
      'AiSdkSetupErrorCode',
      'AiSdkToolApprovalOptions',
      'AiSdkToolApprovalStatus',
      'AiSdkToolCall',
      'AiSdkToolExecutionEnd',
      'FinishTool',
      'FinishToolOptions',
      'GuardRefusal',
      'GuardSource',
      'GuardToolsOptions',
    ],
  },
  'intentguard/openai-agents': {
    source: 'src/integrations/openai-agents/index.ts',
    values: [
      'answerInterruption',
      'finishBehavior',
      'finishToolOptions',
      'intentguardToolOptions',
      'resolveInterruptions',
      'schemaFromOpenAiAgentsTools',
    ],
    types: [
      'AppToolGuardrail',
      'ApprovalItemLike',
      'ApprovalRequest',
      'FinishToolOptions',
      'FinishToolSettings',
      'FunctionCallLike',
      'FunctionToolLike',
      'FunctionToolResultLike',
      'GuardSource',
      'IntentguardToolOptions',
      'IntentguardToolSettings',
      'OpenAiAgentsToolSchemaOptions',
      'ResolvedInterruptions',
      'RunContextLike',
      'RunStateLike',
      'ToolCallDetailsLike',
      'ToolErrorFunctionLike',
      'ToolGuardrailOutputLike',
      'ToolInputGuardrailLike',
      'ToolOutputGuardrailLike',
      'ToolsToFinalOutputResultLike',
    ],
  },
  'intentguard/langchain': {
    source: 'src/integrations/langchain/index.ts',
    values: [
      'IntentguardMiddlewareError',
      'intentguardMiddleware',
      'intentguardStateSchema',
      'isIntentguardApprovalRequest',
      'journalStateKey',
      'schemaFromLangChainTools',
    ],
    types: [
      'GuardSource',
      'IntentguardApprovalRequest',
      'IntentguardApprovalResponse',
      'IntentguardMiddleware',
      'IntentguardMiddlewareErrorCode',
      'IntentguardMiddlewareOptions',
      'LangChainToolSchemaOptions',
    ],
  },
  'intentguard/mcp': {
    source: 'src/integrations/mcp/index.ts',
    values: [
      'McpProxyError',
      'confirmCall',
      'confirmMethods',
      'listenMcpHttp',
      'openSqliteAudit',
      'parseConfirmMethods',
      'schemaFromUpstreamTools',
      'startMcpProxy',
    ],
    types: [
      'ConfirmMethod',
      'McpAudit',
      'McpHttpListener',
      'McpHttpOptions',
      'McpProxy',
      'McpProxyErrorCode',
      'McpProxyInstruction',
      'McpProxyOptions',
      'McpProxyStrictness',
      'UpstreamTarget',
      'UpstreamTool',
    ],
  },
  'intentguard/http': {
    source: 'src/integrations/http/index.ts',
    values: [
      'SqliteServiceStore',
      'createServiceApp',
      'openApiDocument',
      'openServiceStore',
      'startService',
    ],
    types: [
      'RunningService',
      'ServiceApp',
      'ServiceAppOptions',
      'ServiceStore',
      'StartServiceOptions',
    ],
  },
  'intentguard/web': {
    source: 'src/integrations/web/index.ts',
    values: ['confirmWithDialog', 'createWebGuard', 'defineStates', 'verdictEventName'],
    types: [
      'ActionContext',
      'ConfirmRequest',
      'DefinedStates',
      'GuardActionOptions',
      'PublishedState',
      'PublishedVerdict',
      'RemoteOptions',
      'StateDeclaration',
      'StateVariable',
      'StatesDeclaration',
      'TriggerKind',
      'VerdictStatus',
      'WebFailureCode',
      'WebGuard',
      'WebGuardOptions',
    ],
  },
};

/** The export names (values and types) of each pinned entry, from one compiler program. */
function compilerExports(): Map<string, string[]> {
  const sources = Object.values(pinned).map((surface) => join(root, surface.source));
  const program = ts.createProgram(sources, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const names = new Map<string, string[]>();
  for (const source of sources) {
    const file = program.getSourceFile(source);
    const module = file && checker.getSymbolAtLocation(file);
    if (!module) throw new Error(`${source} is not a module`);
    names.set(
      source,
      checker.getExportsOfModule(module).map((symbol) => symbol.name),
    );
  }
  return names;
}

/** The source file behind a `package.json` export (`./dist/x/index.js` → `src/x/index.ts`). */
function sourceOf(target: string | { readonly default: string }): string {
  const path = typeof target === 'string' ? target : target.default;
  return path.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
}

const packageExports = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    readonly exports: Readonly<Record<string, string | { readonly default: string }>>;
  }
).exports;

describe('the public API', () => {
  const exported = compilerExports();

  for (const [entry, surface] of Object.entries(pinned)) {
    it(`${entry} exports exactly its pinned runtime names`, async () => {
      const module = (await import(join(root, surface.source))) as Record<string, unknown>;
      expect(Object.keys(module).sort()).toEqual(surface.values);
    });

    it(`${entry} exports exactly its pinned types`, () => {
      const all = exported.get(join(root, surface.source)) ?? [];
      const typeOnly = all.filter((name) => !surface.values.includes(name)).sort();
      expect(typeOnly).toEqual(surface.types);
    });
  }

  it('pins every entry point package.json publishes', () => {
    for (const [subpath, target] of Object.entries(packageExports)) {
      if (subpath === './package.json') continue;
      const source = sourceOf(target);
      const name = subpath === '.' ? 'intentguard' : `intentguard/${subpath.slice(2)}`;
      expect(pinned[name]?.source, `${name} (${source}) has no pinned surface`).toBe(source);
    }
  });

  it('has no wildcard re-exports in any entry point', () => {
    for (const target of Object.values(packageExports)) {
      const source = sourceOf(target);
      if (!source.endsWith('.ts') || !existsSync(join(root, source))) continue;
      const text = readFileSync(join(root, source), 'utf8');
      expect(text, `${source} re-exports with export *`).not.toMatch(/^\s*export\s+(type\s+)?\*/m);
    }
  });
});
