/**
 * The parts of `@openai/agents` (0.20) the adapter touches, as structural types: the
 * adapter never imports the framework at run time, so that `intentguard/openai-agents`
 * loads without it (an optional peer). The SDK's own objects satisfy these types.
 */

/** The SDK's `RunContext`: the app's context, and the approvals recorded for this run. */
export interface RunContextLike<TContext = unknown> {
  readonly context: TContext;
  isToolApproved(approval: { toolName: string; callId: string }): boolean | undefined;
}

/** The SDK's `FunctionCallItem`: one call the model made. */
export interface FunctionCallLike {
  readonly callId: string;
  readonly name: string;
  /** The arguments as the model wrote them (JSON text). */
  readonly arguments: string;
}

/** What a tool guardrail answers (the SDK's `ToolGuardrailFunctionOutput`). */
export interface ToolGuardrailOutputLike {
  readonly behavior:
    | { readonly type: 'allow' }
    | { readonly type: 'rejectContent'; readonly message: string }
    | { readonly type: 'throwException' };
  readonly outputInfo?: unknown;
}

export interface ToolInputGuardrailDataLike {
  readonly context: RunContextLike;
  readonly toolCall: FunctionCallLike;
}

export interface ToolOutputGuardrailDataLike extends ToolInputGuardrailDataLike {
  readonly output: unknown;
}

/** The SDK's `ToolInputGuardrailDefinition`, as `defineToolInputGuardrail` builds it. */
export interface ToolInputGuardrailLike {
  readonly type: 'tool_input';
  readonly name: string;
  readonly run: (data: ToolInputGuardrailDataLike) => Promise<ToolGuardrailOutputLike>;
}

/** The SDK's `ToolOutputGuardrailDefinition`, as `defineToolOutputGuardrail` builds it. */
export interface ToolOutputGuardrailLike {
  readonly type: 'tool_output';
  readonly name: string;
  readonly run: (data: ToolOutputGuardrailDataLike) => Promise<ToolGuardrailOutputLike>;
}

/**
 * A guardrail of the app's own, run by the adapter after intentguard allows the call
 * (input) or has observed its output (output). `run` receives the SDK's own data object.
 */
export interface AppToolGuardrail {
  readonly name: string;
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's data type, which this module cannot import
  readonly run: (data: any) => Promise<ToolGuardrailOutputLike>;
}

/** The third argument of a tool's `errorFunction`. */
export interface ToolCallDetailsLike {
  readonly toolCall?: FunctionCallLike;
}

/** A tool's `errorFunction`: the text (or value) the model reads when the tool fails. */
export type ToolErrorFunctionLike<TResult = string> = (
  runContext: RunContextLike,
  error: unknown,
  details?: ToolCallDetailsLike,
) => TResult | Promise<TResult>;

/** The SDK's `RunToolApprovalItem`: one call waiting for a person's answer. */
export interface ApprovalItemLike {
  readonly rawItem: unknown;
}

/** The SDK's `RunState` (or anything with its approval methods). */
export interface RunStateLike<TItem extends ApprovalItemLike = ApprovalItemLike> {
  getInterruptions(): TItem[];
  approve(item: TItem, options?: { alwaysApprove?: boolean }): void;
  reject(item: TItem, options?: { alwaysReject?: boolean; message?: string }): void;
}

/** The SDK's `FunctionToolResult`, as `toolUseBehavior` functions receive it. */
export interface FunctionToolResultLike {
  readonly type: string;
  readonly tool: { readonly name: string };
  readonly output?: unknown;
  readonly runItem?: { readonly rawItem?: unknown };
}

/** The SDK's `ToolsToFinalOutputResult` for the two answers the finish gate gives. */
export type ToolsToFinalOutputResultLike =
  | { isFinalOutput: false; isInterrupted: undefined }
  | { isFinalOutput: true; isInterrupted: undefined; finalOutput: string };

/** The SDK's `FunctionTool`, as far as a tool schema needs it. */
export interface FunctionToolLike {
  readonly type: string;
  readonly name: string;
  readonly description?: string;
  readonly parameters?: unknown;
}
