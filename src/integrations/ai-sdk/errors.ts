import { IntentguardError } from '../../support/errors.js';

export type AiSdkSetupErrorCode =
  /**
   * The SDK running the agent ignores `toolApproval` (`ai` 6.x), so the tools would run
   * unchecked: on ai 6 wrap them with `guardTools`.
   */
  | 'tool-approval-ignored'
  /** A tool ran although the guard never checked its call (a tool set not wrapped, a hook the SDK ignores). */
  | 'unchecked-tool-call';

/**
 * What the AI SDK adapter throws when the agent is wired so that tools could run without
 * the guard: the run stops with this error (out of `generateText`, `streamText` or the
 * agent) instead of going on unchecked. Branch on `code`; `toolName` names the tool that
 * ran unchecked, when one did.
 *
 * @example
 * try {
 *   await generateText({ model, tools, toolApproval: intentguardToolApproval(guard), … });
 * } catch (error) {
 *   if (AiSdkSetupError.isInstance(error)) console.error(error.code, error.message);
 * }
 */
export class AiSdkSetupError extends IntentguardError {
  static override readonly marker = 'intentguard.error.AiSdkSetupError';
  override readonly name = 'AiSdkSetupError';
  override readonly code: AiSdkSetupErrorCode;
  readonly toolName: string | undefined;

  constructor(code: AiSdkSetupErrorCode, message: string, toolName?: string) {
    super({ code, message });
    this.code = code;
    this.toolName = toolName;
  }
}
