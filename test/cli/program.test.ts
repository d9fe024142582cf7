import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bank, restaurant } from './examples.js';
import { lines, run } from './run.js';

const packageJson = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { version: string };

/** Each command's options, as its --help must mention them. */
const commandOptions: Readonly<Record<string, readonly string[]>> = {
  check: ['--states <file>', '--tools <file>', '--json'],
  fmt: ['--write', '--check', '--json'],
  explain: ['--states <file>', '--tools <file>', '--now <iso>', '--time-zone <zone>', '--json'],
  replay: [
    '--states <file>',
    '--tools <file>',
    '--trace <file>',
    '--now <iso>',
    '--time-zone <zone>',
    '--check',
    '--escalate-after <n>',
    '--unplanned <mode>',
  ],
  demo: ['--json', '--no-color'],
};

/** Arguments each command would accept, so that only the unknown option is wrong. */
const validArguments: Readonly<Record<string, readonly string[]>> = {
  check: [restaurant.spec, ...restaurant.schemaArgs],
  fmt: [restaurant.spec],
  explain: [restaurant.spec, ...restaurant.schemaArgs],
  replay: [restaurant.spec, ...restaurant.schemaArgs, '--trace', 'trace.jsonl'],
  demo: [],
};

/** The subcommands the top-level help lists (whatever has been registered). */
function listedCommands(help: string): string[] {
  const section = help.split('Commands:')[1] ?? '';
  return [...section.matchAll(/^ {2}(\w[\w-]*)/gm)]
    .map((match) => match[1] ?? '')
    .filter((name) => name !== 'help');
}

describe('intentguard', () => {
  it('--version prints the version of package.json', async () => {
    for (const flag of ['--version', '-v']) {
      const result = await run([flag]);
      expect(result).toMatchObject({ code: 0, stdout: `${packageJson.version}\n`, stderr: '' });
    }
  });

  it('--help lists every command on stdout and exits 0', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('Usage: intentguard');
    expect(listedCommands(result.stdout)).toEqual(
      expect.arrayContaining(['check', 'fmt', 'explain', 'replay', 'demo']),
    );
  });

  it('without a command prints the help on stderr and exits 2', async () => {
    const result = await run([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: intentguard');
  });

  it('an unknown command exits 2 and names it', async () => {
    const result = await run(['chekc', restaurant.spec]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("unknown command 'chekc'");
  });

  it('help for an unknown command exits 2', async () => {
    const result = await run(['help', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });

  it('an unknown top-level option exits 2 and names it', async () => {
    const result = await run(['--frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--frobnicate'");
  });

  it('every listed command has --help that exits 0 on stdout', async () => {
    const commands = listedCommands((await run(['--help'])).stdout);
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const command of commands) {
      const result = await run([command, '--help']);
      expect(result.code, command).toBe(0);
      expect(result.stderr, command).toBe('');
      expect(result.stdout, command).toContain(`Usage: intentguard ${command}`);
    }
  });

  describe.each(Object.entries(commandOptions))('%s', (command, options) => {
    it('--help mentions its options and exit codes', async () => {
      const result = await run([command, '--help']);
      expect(result.code).toBe(0);
      for (const option of options) expect(result.stdout).toContain(option);
      if (command !== 'demo') expect(result.stdout).toMatch(/Exit codes: 0 .*1 .*2 usage/);
    });

    it('help COMMAND prints the same help', async () => {
      const result = await run(['help', command]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe((await run([command, '--help'])).stdout);
    });

    it('an unknown option exits 2, names it, and prints nothing on stdout', async () => {
      const argv = [command, ...(validArguments[command] ?? []), '--bogus'];
      const result = await run(argv);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain("unknown option '--bogus'");
      expect(result.stderr).toContain('--help');
    });
  });

  it.each(['check', 'fmt', 'explain', 'replay'])('%s without SPEC exits 2', async (command) => {
    const result = await run([command, ...(command === 'replay' ? ['--trace', 't.jsonl'] : [])]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing required argument 'spec'");
  });

  it('extra arguments are a usage error', async () => {
    const result = await run(['check', restaurant.spec, bank.spec, ...restaurant.schemaArgs]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('too many arguments');
  });

  it('reports input errors with the program name and one line', async () => {
    const result = await run(['check', '/no/such/spec.intent', ...restaurant.schemaArgs]);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual([
      "intentguard: cannot read spec '/no/such/spec.intent': no such file",
    ]);
  });
});
