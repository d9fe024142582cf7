import type { Command } from 'commander';
import type { McpAudit, McpProxy, McpProxyInstruction } from '../../integrations/mcp/index.js';
import { parseListen } from '../flags/listen-flag.js';
import { chatModelFromFlags, defaultModel, modelCallOptions } from '../flags/model-flags.js';
import { wholeNumber } from '../flags.js';
import { displayName, readInput } from '../inputs.js';
import { CliError, type CliIo } from '../io.js';
import type { CommandRegistration } from '../program.js';
import { sessionOptionsFromFlags } from '../session-options.js';

interface McpProxyFlags {
  readonly spec?: string;
  readonly instruction?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly timeout?: string;
  readonly maxRetries?: string;
  readonly confirm?: string;
  readonly confirmTimeout?: string;
  readonly audit?: string;
  readonly listen?: string;
  readonly upstreamUrl?: string;
  readonly header?: readonly string[];
  readonly now?: string;
  readonly timeZone?: string;
  readonly shadow?: boolean;
  readonly strict?: string | boolean;
  readonly toolsOut?: string;
  readonly policy?: string;
}

function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new CliError(`--header: '${line}' is not 'Name: value'`, 2);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

async function instructionOf(
  io: CliIo,
  flags: McpProxyFlags,
  text: string,
): Promise<McpProxyInstruction> {
  const name = flags.model ?? io.env['INTENTGUARD_MODEL'] ?? defaultModel;
  return { instruction: text, model: await chatModelFromFlags(io, name, flags) };
}

/** Resolves on the first of: the client disconnects, SIGINT, SIGTERM. */
function untilStopped(served: Promise<void> | undefined): Promise<string> {
  return new Promise<string>((resolve) => {
    const stop = (why: string) => () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(why);
    };
    const onInt = stop('SIGINT');
    const onTerm = stop('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
    served?.then(stop('the client disconnected'), stop('the client connection failed'));
  });
}

/**
 * The first step of docs/mcp.md lists the upstream's tools before the spec exists
 * (`--spec task.intent --tools-out tools.json`): a missing spec file is then no usage
 * error, the tools are written and the proxy exits 1, as for a spec that does not check.
 */
async function isSpecNotWrittenYet(io: CliIo, flags: McpProxyFlags): Promise<boolean> {
  if (flags.spec === undefined || flags.spec === '-' || flags.toolsOut === undefined) return false;
  try {
    await io.readFile(flags.spec);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === 'ENOENT';
  }
}

/** `--strict` alone refuses; `--strict confirm` asks the person instead. */
function strictness(flag: string | boolean | undefined): 'refuse' | 'confirm' | undefined {
  if (flag === undefined || flag === false) return undefined;
  if (flag === true || flag === 'refuse') return 'refuse';
  if (flag === 'confirm') return 'confirm';
  throw new CliError(`--strict: '${flag}' is not refuse or confirm`, 2);
}

/** What to guard and what to front: one spec source and one upstream, well formed. */
function checkTargetFlags(flags: McpProxyFlags, upstreamCommand: readonly string[]): void {
  if (flags.spec === undefined && flags.instruction === undefined)
    throw new CliError(
      'refusing to start without a spec: give --spec FILE (the task as an intent spec) or --instruction TEXT (formalized once with --model); a proxy with nothing to check against guards nothing',
      2,
    );
  if (flags.spec !== undefined && flags.instruction !== undefined)
    throw new CliError('give --spec or --instruction, not both', 2);
  if (flags.upstreamUrl !== undefined && upstreamCommand.length > 0)
    throw new CliError('give the upstream server as --upstream-url URL or after --, not both', 2);
  if (flags.upstreamUrl === undefined && upstreamCommand.length === 0)
    throw new CliError(
      'no upstream server: give its command after -- (e.g. -- npx -y @modelcontextprotocol/server-filesystem ~/notes) or --upstream-url URL',
      2,
    );
  if (flags.upstreamUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(flags.upstreamUrl);
    } catch {
      throw new CliError(`--upstream-url: '${flags.upstreamUrl}' is not a URL`, 2);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new CliError(`--upstream-url: '${flags.upstreamUrl}' is not http(s)`, 2);
  }
}

async function runMcpProxy(
  io: CliIo,
  state: { exitCode: number },
  upstreamCommand: readonly string[],
  flags: McpProxyFlags,
): Promise<void> {
  checkTargetFlags(flags, upstreamCommand);
  const mcp = await import('../../integrations/mcp/index.js');
  let confirm: ReturnType<typeof mcp.parseConfirmMethods> | undefined;
  if (flags.confirm !== undefined) {
    try {
      confirm = mcp.parseConfirmMethods(flags.confirm);
    } catch (error) {
      throw new CliError(`--confirm: ${(error as Error).message}`, 2);
    }
  }
  const confirmSeconds = wholeNumber('--confirm-timeout', flags.confirmTimeout, 1, 3600);
  const listen =
    flags.listen !== undefined ? parseListen(flags.listen, '127.0.0.1:8931') : undefined;
  const headers = parseHeaders(flags.header ?? []);
  const session = sessionOptionsFromFlags({
    ...(flags.now !== undefined ? { now: flags.now } : {}),
    ...(flags.timeZone !== undefined ? { timeZone: flags.timeZone } : {}),
  });
  const specNotWritten = await isSpecNotWrittenYet(io, flags);
  // An empty spec never checks: the tools are written, then the proxy stops with exit 1.
  const spec = specNotWritten
    ? ''
    : flags.spec !== undefined
      ? await readInput(io, flags.spec, 'spec')
      : undefined;
  // Checked against the upstream's tools once they are listed (invalid-policy: exit 1).
  const policy =
    flags.policy !== undefined ? await readInput(io, flags.policy, 'policy') : undefined;
  const instruction =
    flags.instruction !== undefined
      ? await instructionOf(io, flags, flags.instruction.trim())
      : undefined;
  if (instruction !== undefined && instruction.instruction === '')
    throw new CliError('--instruction: the instruction is empty', 2);

  const strict = strictness(flags.strict);
  let audit: McpAudit | undefined;
  if (flags.audit !== undefined) {
    try {
      audit = mcp.openSqliteAudit(flags.audit);
    } catch (error) {
      throw new CliError(`--audit: cannot open '${flags.audit}': ${(error as Error).message}`, 2);
    }
  }
  const log = (line: string): void => io.stderr(`${line}\n`);
  let proxy: McpProxy;
  try {
    proxy = await mcp.startMcpProxy({
      upstream:
        flags.upstreamUrl !== undefined
          ? { url: flags.upstreamUrl, headers }
          : { command: upstreamCommand[0] as string, args: upstreamCommand.slice(1) },
      ...(spec !== undefined ? { spec } : {}),
      ...(instruction !== undefined ? { instruction } : {}),
      ...(confirm !== undefined ? { confirm } : {}),
      ...(confirmSeconds !== undefined ? { confirmTimeoutMs: confirmSeconds * 1000 } : {}),
      guard: {
        ...session,
        ...(flags.shadow ? { mode: 'shadow' as const } : {}),
        ...(policy !== undefined ? { policy } : {}),
      },
      ...(strict !== undefined ? { strict } : {}),
      ...(audit !== undefined ? { audit } : {}),
      log,
      ...(flags.toolsOut !== undefined
        ? {
            onTools: (tools: readonly unknown[]) =>
              io.writeFile(flags.toolsOut as string, `${JSON.stringify({ tools }, null, 2)}\n`),
          }
        : {}),
    });
  } catch (error) {
    audit?.close();
    if (mcp.McpProxyError.isInstance(error)) {
      if (specNotWritten && error.code === 'invalid-spec')
        throw new CliError(
          `the upstream's tools are in ${displayName(flags.toolsOut as string)}; ${displayName(flags.spec as string)} does not exist yet: write the spec against them, check it with intentguard check ${flags.spec} --tools ${flags.toolsOut}, then start the proxy again`,
          1,
        );
      const file = error.code === 'invalid-policy' ? flags.policy : flags.spec;
      const where = file !== undefined ? ` (${displayName(file)})` : '';
      const exit = ['invalid-spec', 'invalid-policy', 'no-valid-spec'].includes(error.code) ? 1 : 2;
      const located = error.code === 'invalid-spec' || error.code === 'invalid-policy';
      throw new CliError(`${error.message}${located ? where : ''}`, exit);
    }
    throw error;
  }
  if (instruction !== undefined)
    io.stderr(`intentguard: guarding with this spec:\n${proxy.spec}\n`);
  io.stderr(
    `intentguard: mcp-proxy guarding ${proxy.tools.length} tool${proxy.tools.length === 1 ? '' : 's'} of the upstream server\n`,
  );
  try {
    if (listen) {
      const listener = await mcp.listenMcpHttp(proxy, { ...listen, log });
      io.stderr(`intentguard: mcp-proxy listening on ${listener.url}\n`);
      const why = await untilStopped(undefined);
      log(`intentguard: stopping (${why})`);
      await listener.close();
    } else {
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const transport = new StdioServerTransport(process.stdin, process.stdout);
      const ended = new Promise<void>((resolve) => {
        process.stdin.once('end', () => resolve());
        process.stdin.once('close', () => resolve());
      });
      const served = proxy.serve(transport);
      const why = await untilStopped(Promise.race([served, ended]));
      log(`intentguard: stopping (${why})`);
    }
  } finally {
    await proxy.close();
    audit?.close();
  }
  state.exitCode = 0;
}

/**
 * `intentguard mcp-proxy --spec task.intent -- UPSTREAM_CMD ARGS…`: an MCP server that
 * fronts another, checking every tool call against the task's spec.
 */
export const registerMcpProxy: CommandRegistration = (program: Command, io, state) => {
  const command = program
    .command('mcp-proxy')
    .description(
      'Serve an upstream MCP server through the guard: every tools/call is checked against the spec.',
    )
    .argument('[upstream...]', 'the upstream server command and its arguments, after --')
    .option('--spec <file>', 'the task as an intent spec, over the upstream tools')
    .option('--instruction <text>', 'the user instruction, formalized once at start-up')
    .option(
      '--policy <file>',
      "the operator's policy (LANGUAGE.md §8), over the upstream tools: every call is judged by it as well",
    )
    .option(
      '--model <provider:model>',
      `for --instruction (default $INTENTGUARD_MODEL or ${defaultModel})`,
    )
    .option('--base-url <url>', 'the model provider endpoint');
  modelCallOptions(command)
    .option(
      '--confirm <methods>',
      'how confirmations are asked, in order: elicit, console, deny (default elicit,console,deny)',
    )
    .option('--confirm-timeout <seconds>', 'how long a person has to answer (default 55)')
    .option('--audit <db>', 'append every decision to this SQLite file')
    .option('--listen <host:port>', 'serve streamable HTTP on this address instead of stdio')
    .option('--upstream-url <url>', 'a streamable-HTTP upstream server instead of a command')
    .option('--header <name: value>', 'a header for --upstream-url (repeatable)', collect)
    .option('--now <iso>', "the session's date and time (default: now)")
    .option('--time-zone <zone>', 'IANA time zone (default UTC)')
    .option('--shadow', 'decide and audit, but forward every call')
    .option(
      '--strict [refuse|confirm]',
      'refuse (default) or confirm every call no rule plans, read-only tools included',
    )
    .option(
      '--tools-out <file>',
      "write the upstream's tools/list here at start-up (to write or check the spec against; the --spec file need not exist yet, the proxy then exits 1 after writing)",
    )
    .addHelpText(
      'after',
      '\nExample:\n  intentguard mcp-proxy --spec task.intent --audit audit.db -- npx -y @modelcontextprotocol/server-filesystem ~/notes\n' +
        'Exit codes: 0 stopped normally, 1 the spec does not check against the tools, 2 usage or upstream error.',
    )
    .action(async (upstream: string[], flags: McpProxyFlags) => {
      await runMcpProxy(io, state, upstream, flags);
    });
};
