import type { Diagnostic } from '../../language/index.js';
import { IntentguardError } from '../../language/index.js';

/**
 * Why the proxy did not start: `no-spec` (neither a spec nor an instruction: it never
 * guards with nothing), `invalid-spec` (the spec does not check against the upstream's
 * tools; `diagnostics` say where), `no-valid-spec` (the instruction gave none),
 * `upstream-failed` (the upstream server could not be reached or listed).
 */
export type McpProxyErrorCode =
  | 'no-spec'
  | 'invalid-spec'
  | 'invalid-policy'
  | 'no-valid-spec'
  | 'upstream-failed';

export class McpProxyError extends IntentguardError {
  static override readonly marker = 'intentguard.error.McpProxyError';
  static readonly errorName = 'IntentguardMcpProxyError';
  override readonly name = McpProxyError.errorName;
  override readonly code: McpProxyErrorCode;

  constructor(
    code: McpProxyErrorCode,
    message: string,
    readonly diagnostics: readonly Diagnostic[] = [],
    cause?: unknown,
  ) {
    super({ code, message, cause });
    this.code = code;
  }
}
