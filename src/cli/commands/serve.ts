import type { Command } from 'commander';
import {
  type ServiceMemoryLimits,
  serviceMemoryLimits,
} from '../../integrations/http/memory-budget.js';
import { checkPolicy, renderDiagnostics, type Schema } from '../../language/index.js';
import { redactedUrl } from '../../store/postgres-url.js';
import { errorMessage } from '../../support/error-message.js';
import { parseListen } from '../flags/listen-flag.js';
import { chatModelFromFlags, modelCallOptions } from '../flags/model-flags.js';
import { wholeNumber } from '../flags.js';
import { displayName, loadSchemaOption, readInput } from '../inputs.js';
import { CliError, type CliIo } from '../io.js';
import { isModuleNotFound } from '../optional-packages.js';
import type { CommandRegistration } from '../program.js';

interface ServeFlags {
  readonly listen: string;
  readonly db: string;
  readonly token?: string[];
  readonly approverToken?: string[];
  readonly maxSessions?: string;
  readonly authFailureLimit?: string;
  readonly cors?: string;
  readonly maxBody?: string;
  readonly rateLimit?: string;
  readonly maxSessionText?: string;
  readonly maxServiceText?: string;
  readonly model?: string;
  readonly timeout?: string;
  readonly maxRetries?: string;
  readonly policy?: string;
  readonly allowSessionPolicy?: boolean;
  readonly tools?: string;
  readonly states?: string;
}

/** `host:port`, `:port` or `port`; IPv6 in brackets (`[::1]:8787`). */
function tokensOf(
  io: CliIo,
  given: readonly string[] | undefined,
  variable = 'INTENTGUARD_TOKEN',
): string[] {
  const fromEnv = (io.env[variable] ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '');
  const tokens = [...(given ?? []), ...fromEnv];
  if (tokens.length === 0 && variable === 'INTENTGUARD_TOKEN') {
    throw new CliError(
      'a bearer token is required: give --token TOKEN or set INTENTGUARD_TOKEN',
      2,
    );
  }
  for (const token of tokens) {
    if (!/^[\x21-\x7e]{16,}$/.test(token)) {
      throw new CliError('a token must be at least 16 printable characters without spaces', 2);
    }
  }
  return tokens;
}

/** `--max-session-text` and `--max-service-text`, checked together (a session must fit in the service). */
function memoryFlags(flags: ServeFlags): ServiceMemoryLimits {
  const maxSessionText = wholeNumber('--max-session-text', flags.maxSessionText, 1, 2 ** 40);
  const maxServiceText = wholeNumber('--max-service-text', flags.maxServiceText, 1, 2 ** 40);
  try {
    return serviceMemoryLimits({
      ...(maxSessionText !== undefined ? { maxSessionText } : {}),
      ...(maxServiceText !== undefined ? { maxServiceText } : {}),
    });
  } catch (error) {
    throw new CliError(`--max-session-text, --max-service-text: ${errorMessage(error)}`, 2);
  }
}

/**
 * `--policy FILE`, checked at start against the schema the operator wrote it over
 * (`--tools`/`--states`): a service whose policy does not check serves nothing (exit 2).
 * Each session checks it again against its own schema.
 */
async function policyFlag(
  io: CliIo,
  flags: ServeFlags,
): Promise<{ text: string; schema: Schema } | undefined> {
  const schemaGiven = flags.tools !== undefined || flags.states !== undefined;
  if (flags.policy === undefined) {
    if (schemaGiven)
      throw new CliError('--tools and --states on serve check --policy; give --policy FILE', 2);
    if (flags.allowSessionPolicy) throw new CliError('--allow-session-policy needs --policy', 2);
    return undefined;
  }
  if (!schemaGiven)
    throw new CliError(
      '--policy needs the schema it is written over: give --tools FILE and/or --states FILE',
      2,
    );
  const schema = await loadSchemaOption(io, flags, true);
  const text = await readInput(io, flags.policy, 'policy');
  const checked = checkPolicy(text, schema!.schema);
  if (!checked.ok) {
    const fileName = displayName(flags.policy);
    io.stderr(
      `${renderDiagnostics(checked.diagnostics, text, { fileName, color: io.stderrIsTerminal })}\n`,
    );
    throw new CliError(`the policy '${fileName}' has errors; nothing is served`, 2);
  }
  return { text, schema: schema!.schema };
}

/** The flags of `--policy`: the file, the schema it is checked against, whether sessions may replace it. */
function policyOptions(command: Command): void {
  command
    .option(
      '--policy <file>',
      "the operator's policy every session is decided under (LANGUAGE.md §8); checked at start against --tools/--states",
    )
    .option('--tools <file>', 'tool schemas --policy is checked against at start')
    .option('--states <file>', 'a states schema --policy is checked against at start')
    .option(
      '--allow-session-policy',
      'let a session name its own policy in place of --policy (otherwise that is 403)',
    );
}

/** Resolves when the process is told to stop (SIGINT, SIGTERM). */
function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** `intentguard serve`: the guard as an HTTP service for agents in any language. */
export const registerServe: CommandRegistration = (program: Command, io, state) => {
  const command = program
    .command('serve')
    .description(
      'Serve the guard over HTTP (REST + JSON): sessions persisted in SQLite or PostgreSQL, bearer tokens, hash-chained audit.',
    )
    .option('--listen <host:port>', 'where to listen (port 0 picks a free one)', '127.0.0.1:8787')
    .option(
      '--db <file|url>',
      'the SQLite file of sessions and the audit log, or a postgres:// URL of a database several instances share',
      'intentguard.db',
    )
    .option(
      '--token <token>',
      'a bearer token clients must send (repeat for several; also INTENTGUARD_TOKEN, comma-separated)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '--approver-token <token>',
      'a token of a person who approves calls (repeat for several; also INTENTGUARD_APPROVER_TOKEN, comma-separated); with one, agent tokens can no longer approve',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--max-sessions <n>', 'open sessions one token may have (default 1000)')
    .option(
      '--auth-failure-limit <n>',
      'failed authentications per second per client address before it is refused (default 10; 0: no limit)',
    )
    .option('--cors <origin>', 'allow browser requests from this origin (off by default)')
    .option('--max-body <bytes>', 'the largest request body (default 1048576)')
    .option('--rate-limit <n>', 'requests per second per token (default 2000; 0: no limit)')
    .option(
      '--max-session-text <chars>',
      'characters of calls and results one session may hold; then it takes no more (default 32000000, or an eighth of --max-service-text when less)',
    )
    .option(
      '--max-service-text <chars>',
      'characters all sessions in memory may hold; then idle ones are dropped from memory, or new work is 503 (default: an eighth of the heap limit)',
    )
    .option('--model <name>', 'a model to formalize sessions created from an instruction');
  policyOptions(command);
  modelCallOptions(command)
    .addHelpText(
      'after',
      '\nPrints the bound URL on stderr and serves until SIGINT or SIGTERM. The API is documented at /v1/openapi.json and in docs/service.md.\nExit codes: 0 stopped, 2 usage error, a --policy that does not check, or the address or file could not be opened.',
    )
    .action(async (flags: ServeFlags) => {
      const { host, port } = parseListen(flags.listen, '127.0.0.1:8787');
      const tokens = tokensOf(io, flags.token);
      const approverTokens = tokensOf(io, flags.approverToken, 'INTENTGUARD_APPROVER_TOKEN');
      if (approverTokens.some((token) => tokens.includes(token)))
        throw new CliError('a token cannot be both --token and --approver-token', 2);
      const maxOpenSessions = wholeNumber('--max-sessions', flags.maxSessions, 1, 10_000_000);
      const authFailureLimit = wholeNumber(
        '--auth-failure-limit',
        flags.authFailureLimit,
        0,
        10_000_000,
      );
      const maxBodyBytes = wholeNumber('--max-body', flags.maxBody, 1024, 256 * 1024 * 1024);
      const rateLimit = wholeNumber('--rate-limit', flags.rateLimit, 0, 10_000_000);
      const memory = memoryFlags(flags);
      const policy = await policyFlag(io, flags);
      const model =
        flags.model !== undefined ? await chatModelFromFlags(io, flags.model, flags) : undefined;
      const { startService } = await import('../../integrations/http/server.js');
      let service: Awaited<ReturnType<typeof startService>>;
      try {
        service = await startService({
          db: flags.db,
          tokens,
          ...(approverTokens.length > 0 ? { approverTokens } : {}),
          ...(maxOpenSessions !== undefined ? { maxOpenSessions } : {}),
          ...(authFailureLimit !== undefined ? { authFailureLimit } : {}),
          host,
          port,
          ...(model !== undefined ? { model } : {}),
          ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
          ...(rateLimit !== undefined ? { rateLimit } : {}),
          memory,
          ...(policy !== undefined ? { policy: policy.text, policySchema: policy.schema } : {}),
          ...(flags.allowSessionPolicy ? { allowSessionPolicy: true } : {}),
          ...(flags.cors !== undefined ? { corsOrigin: flags.cors } : {}),
          log: (line) => io.stderr(`intentguard serve: ${line}\n`),
        });
      } catch (error) {
        // `pg` not installed: the command says what to install (optional-packages.ts).
        if (isModuleNotFound(error)) throw error;
        throw new CliError(
          `could not serve on ${flags.listen} with '${redactedUrl(flags.db)}': ${errorMessage(error)}`,
          2,
        );
      }
      if (approverTokens.length === 0)
        io.stderr(
          'intentguard serve: no --approver-token: each token approves the calls of its own sessions\n',
        );
      io.stderr(
        `intentguard serve: listening on ${service.url} (${service.restored} open session${service.restored === 1 ? '' : 's'} restored from ${service.store})\n`,
      );
      const signal = await stopSignal();
      io.stderr(`intentguard serve: ${signal}, stopping\n`);
      await service.close();
      state.exitCode = 0;
    });
};
