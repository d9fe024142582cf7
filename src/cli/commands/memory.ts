import type { Command } from 'commander';
import { canonicalSpecText } from '../../language/index.js';
import type { ExperienceMemory, MemoryEntry, MemoryOutcome } from '../../store/index.js';
import { wholeNumber } from '../flags.js';
import { printJson } from '../inputs.js';
import { CliError, type CliIo } from '../io.js';
import { openMemory } from '../memory-store.js';
import type { CommandRegistration } from '../program.js';
import { loadCheckedSpec } from '../spec-loading.js';

interface MemoryFlags {
  readonly memory: string;
  readonly json?: boolean;
  readonly note?: string;
  readonly schema?: string;
  readonly outcome?: string;
  readonly limit?: string;
  readonly instruction?: string;
  readonly states?: string;
  readonly tools?: string;
}

function entryJson(entry: MemoryEntry): Record<string, unknown> {
  return { ...entry };
}

function entryLine(entry: MemoryEntry): string {
  const flat = entry.instruction.replace(/\s+/g, ' ');
  return `${entry.id}\t${entry.outcome}\t${entry.schemaId}\t${flat.length > 80 ? `${flat.slice(0, 79)}…` : flat}`;
}

function outcomeFlag(
  value: string | undefined,
  allowed: readonly MemoryOutcome[],
): MemoryOutcome | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new CliError(`'${value}' is not an outcome; use ${allowed.join(' or ')}`, 2);
  }
  return value as MemoryOutcome;
}

async function withMemory<T>(
  path: string,
  use: (memory: ExperienceMemory) => Promise<T> | T,
): Promise<T> {
  const memory = await openMemory(path);
  try {
    return await use(memory);
  } catch (error) {
    const store = await import('../../store/index.js');
    if (store.MemoryError.isInstance(error)) throw new CliError(error.message, 2);
    throw error;
  } finally {
    memory.close();
  }
}

type EntryFilter = { schemaId?: string; outcome?: MemoryOutcome; limit?: number };

/** `memory list` and `memory search`: the filter flags, then one line (or JSON) per entry. */
async function printEntries(
  io: CliIo,
  flags: MemoryFlags,
  find: (store: ExperienceMemory, filter: EntryFilter) => readonly MemoryEntry[],
): Promise<void> {
  const outcome = outcomeFlag(flags.outcome, ['success', 'failure', 'pending']);
  const limit = wholeNumber('--limit', flags.limit, 1, 100);
  const filter: EntryFilter = {
    ...(flags.schema !== undefined ? { schemaId: flags.schema } : {}),
    ...(outcome !== undefined ? { outcome } : {}),
    ...(limit !== undefined ? { limit } : {}),
  };
  await withMemory(flags.memory, (store) => {
    const entries = find(store, filter);
    if (flags.json) printJson(io, entries.map(entryJson));
    else io.stdout(entries.map((entry) => `${entryLine(entry)}\n`).join(''));
  });
}

/** `intentguard memory …`: what fills the formalizer's experience memory. */
export const registerMemory: CommandRegistration = (program: Command, io, state) => {
  const memory = program
    .command('memory')
    .description(
      'Experience memory: record whether formalized specs worked; successful ones prime later prompts.',
    );

  memory
    .command('record')
    .description('Record how the task of a remembered spec went (what fills memory).')
    .argument('<entry>', 'the entry id that formalize --memory printed')
    .argument('<outcome>', 'success or failure')
    .requiredOption('--memory <db>', 'the memory file (SQLite)')
    .option('--note <text>', 'why, in a few words')
    .option('--json', 'print the entry as JSON')
    .action(async (id: string, outcomeText: string, flags: MemoryFlags) => {
      const outcome = outcomeFlag(outcomeText, ['success', 'failure']) ?? 'success';
      const entryId = wholeNumber('<entry>', id, 1, Number.MAX_SAFE_INTEGER) ?? 0;
      await withMemory(flags.memory, (store) => {
        const entry = store.setOutcome(entryId, outcome, flags.note);
        if (!entry) throw new CliError(`there is no entry ${entryId} in '${flags.memory}'`, 2);
        if (flags.json) printJson(io, entryJson(entry));
        else io.stdout(`entry ${entry.id}: ${entry.outcome}\n`);
      });
      state.exitCode = 0;
    });

  memory
    .command('add')
    .description(
      'Remember a spec written or fixed by hand; it is checked against the schema first.',
    )
    .argument('<spec>', 'the spec file, or - for standard input')
    .requiredOption('--instruction <text>', 'the instruction the spec formalizes')
    .requiredOption('--memory <db>', 'the memory file (SQLite)')
    .option('--states <file>', 'a states schema (JSON)')
    .option('--tools <file>', 'tool schemas (ToolEmu, MCP tools/list, OpenAI tools)')
    .option('--outcome <outcome>', 'success (default), failure or pending', 'success')
    .option('--json', 'print the entry as JSON')
    .action(async (specPath: string, flags: MemoryFlags) => {
      const outcome = outcomeFlag(flags.outcome, ['success', 'failure', 'pending']) ?? 'success';
      const { spec, schema } = await loadCheckedSpec(io, specPath, flags);
      await withMemory(flags.memory, (store) => {
        const entry = store.record({
          instruction: (flags.instruction ?? '').trim(),
          schemaId: schema.schema.id,
          spec: canonicalSpecText(spec),
          outcome,
        });
        if (flags.json) printJson(io, entryJson(entry));
        else io.stdout(`entry ${entry.id}: ${entry.outcome}\n`);
      });
      state.exitCode = 0;
    });

  memory
    .command('list')
    .description('List remembered specs, newest first.')
    .requiredOption('--memory <db>', 'the memory file (SQLite)')
    .option('--schema <id>', 'only entries of this schema id (the schema file name without .json)')
    .option('--outcome <outcome>', 'only success, failure or pending entries')
    .option('--limit <n>', 'at most this many (default 20)')
    .option('--json', 'print the entries as JSON')
    .action(async (flags: MemoryFlags) => {
      await printEntries(io, flags, (store, filter) => store.list(filter));
      state.exitCode = 0;
    });

  memory
    .command('search')
    .description('Find remembered specs for instructions similar to TEXT (full-text search).')
    .argument('<text>', 'an instruction')
    .requiredOption('--memory <db>', 'the memory file (SQLite)')
    .option('--schema <id>', 'only entries of this schema id')
    .option('--outcome <outcome>', 'only success, failure or pending entries')
    .option('--limit <n>', 'at most this many (default 5)')
    .option('--json', 'print the entries as JSON')
    .action(async (text: string, flags: MemoryFlags) => {
      await printEntries(io, flags, (store, filter) => store.search(text, filter));
      state.exitCode = 0;
    });
};
