import type { Command } from 'commander';
import type { ChatModel } from '../../formalize/index.js';
import { wholeNumber } from '../flags.js';
import { CliError, type CliIo } from '../io.js';

/** The model `formalize` and `mcp-proxy --instruction` use when neither flag nor env names one. */
export const defaultModel = 'openai:gpt-4o';

/**
 * The flags every command that calls a model takes (`formalize`, `eval`, `serve`,
 * `mcp-proxy`): where the provider is, how long one call may take, how often a failed
 * call is retried.
 */
export interface ModelFlags {
  readonly baseUrl?: string;
  readonly timeout?: string;
  readonly maxRetries?: string;
}

/** Declares `--timeout` and `--max-retries` on a command that calls a model. */
export function modelCallOptions(command: Command): Command {
  return command
    .option('--timeout <seconds>', 'per model call (default 60)')
    .option('--max-retries <n>', 'retries on 429, 5xx and timeouts (default 3)');
}

/**
 * A chat model named `name` (PROVIDER:MODEL), configured from the flags the same way for
 * every command. A bad flag value or model name is a usage error naming `flag`; the
 * formalizer module is loaded here, when a command needs a model, not before.
 */
export async function chatModelFromFlags(
  io: CliIo,
  name: string,
  flags: ModelFlags,
  flag = '--model',
): Promise<ChatModel> {
  const timeoutSeconds = wholeNumber('--timeout', flags.timeout, 1, 3600);
  const maxRetries = wholeNumber('--max-retries', flags.maxRetries, 0, 10);
  const module = await import('../../formalize/index.js');
  try {
    return module.createChatModel(name, {
      env: io.env,
      ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
      ...(timeoutSeconds !== undefined ? { timeoutMs: timeoutSeconds * 1000 } : {}),
      ...(maxRetries !== undefined ? { retry: { maxRetries } } : {}),
    });
  } catch (error) {
    if (module.ModelError.isInstance(error)) throw new CliError(`${flag}: ${error.message}`, 2);
    throw error;
  }
}
