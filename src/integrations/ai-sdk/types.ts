/**
 * The parts of the Vercel AI SDK the adapter touches, as structural types. The adapter
 * never imports `ai` at runtime (it is an optional peer), and these shapes are the ones
 * v6 (`ai` 6.x) and v7 (`ai` 7.x) share, so one build serves both lines.
 */

/** A tool call as the SDK hands it to `toolApproval` (v7) and tool-execution events. */
export interface AiSdkToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}

/**
 * What a v7 `toolApproval` function answers (`ToolApprovalStatus` in `ai`): run without
 * asking, ask the person (the reason is shown to them), or deny (the reason is the
 * `execution-denied` tool result the model reads).
 */
export type AiSdkToolApprovalStatus =
  | 'not-applicable'
  | { readonly type: 'user-approval'; readonly reason?: string }
  | { readonly type: 'denied'; readonly reason?: string };

/** The options v7 passes to a generic `toolApproval` function. */
export interface AiSdkToolApprovalOptions {
  readonly toolCall: AiSdkToolCall;
  /** The tools of the step (`undefined` when the call has none). */
  readonly tools?: unknown;
  readonly runtimeContext?: unknown;
  /** The messages sent to the model for the step that made the call. */
  readonly messages: readonly unknown[];
}

/** What a tool's `execute` receives besides its input (both lines). */
export interface AiSdkToolExecutionOptions {
  readonly toolCallId: string;
  readonly messages: readonly unknown[];
  readonly abortSignal?: AbortSignal;
}

/** What a tool's `needsApproval` function receives (both lines). */
export interface AiSdkNeedsApprovalOptions {
  readonly toolCallId: string;
  readonly messages: readonly unknown[];
}

/** A tool result as the model reads it (`ToolResultOutput` in `ai`, the kinds used here). */
export type AiSdkToolModelOutput =
  | { readonly type: 'text'; readonly value: string }
  | { readonly type: 'json'; readonly value: unknown };

/**
 * The end of a tool execution: v7's `onToolExecutionEnd` event (`toolOutput`), or
 * v6's `experimental_onToolCallFinish` event (`success` with `output` or `error`).
 */
export interface AiSdkToolExecutionEnd {
  readonly toolCall: { readonly toolCallId: string };
  readonly toolOutput?:
    | { readonly type: 'tool-result'; readonly output: unknown }
    | { readonly type: 'tool-error'; readonly error: unknown };
  readonly success?: boolean;
  readonly output?: unknown;
  readonly error?: unknown;
}

/** The tool property bag the adapter reads and writes; every SDK tool fits it. */
export interface AiSdkToolShape {
  readonly type?: string;
  readonly description?: unknown;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly needsApproval?:
    | boolean
    | ((input: never, options: never) => boolean | PromiseLike<boolean>)
    | undefined;
  readonly execute?: ((input: never, options: never) => unknown) | undefined;
  readonly toModelOutput?: ((options: never) => unknown) | undefined;
}
