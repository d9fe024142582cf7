import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bank, fixedNow, projectRoot, readText, restaurant, restaurantStates } from './examples.js';
import { jsonLines, lines } from './run.js';

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the real command in a child process, as `node --import tsx src/cli/main.ts`
 * (what the `intentguard` bin runs once built), with `input` piped to its stdin.
 * `stopReadingAfter` closes our end of its stdout after that many bytes, the way
 * `intentguard demo | head` does.
 */
function intentguard(
  args: readonly string[],
  options: { readonly input?: string; readonly stopReadingAfter?: number } = {},
): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: projectRoot,
      env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if (options.stopReadingAfter !== undefined && stdout.length >= options.stopReadingAfter) {
        child.stdout.destroy();
      }
    });
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

describe('the intentguard command, as a child process', () => {
  it('replays a trace with --check', async () => {
    const trace = bank.traces[0] ?? '';
    const result = await intentguard([
      'replay',
      bank.spec,
      ...bank.schemaArgs,
      '--trace',
      trace,
      '--now',
      fixedNow,
      '--check',
    ]);
    expect(result.stderr).toBe('7 passed, 0 failed\n');
    expect(result.code).toBe(0);
    const output = jsonLines(result.stdout);
    expect(output).toHaveLength(lines(readText(trace)).length);
    expect(output[0]).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(output.at(-1)).toMatchObject({ decision: 'allow', done: true });
  });

  it('exits 1 when an expectation fails', async () => {
    const trace = '{"propose": {"finish": true}, "expect": "allow"}\n';
    const result = await intentguard(
      ['replay', restaurant.spec, ...restaurant.schemaArgs, '--trace', '-', '--check'],
      { input: trace },
    );
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      '<stdin>:1: expected allow: got decision revise, expected allow',
      '0 passed, 1 failed',
    ]);
  });

  it('checks a spec piped to its standard input', async () => {
    const ok = await intentguard(['check', '-', '--states', restaurantStates], {
      input: readText(restaurant.spec),
    });
    expect(ok).toEqual({ code: 0, stdout: '<stdin>: ok — 0 errors, 0 warnings\n', stderr: '' });

    const bad = await intentguard(['check', '-', '--states', restaurantStates], {
      input: 'RestaurantInfo(name = 5) -> Done\n',
    });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('--> <stdin>:1:23');
    // Not a terminal: no colours.
    expect(bad.stdout).not.toContain('\u001b[');
  });

  it('checks a compiled composition piped to its standard input', async () => {
    const schema = [
      '--tools',
      'examples/policy/tools.json',
      '--states',
      'examples/policy/states.json',
    ];
    const policy = ['--policy', 'examples/policy/airline.policy'];
    const compiled = await intentguard([
      'compile',
      'examples/policy/cancel.intent',
      ...schema,
      ...policy,
    ]);
    expect(compiled.code).toBe(0);
    const checked = await intentguard(['check', '-'], { input: compiled.stdout });
    expect(checked.code).toBe(0);
    expect(lines(checked.stdout)).toEqual([
      '<stdin> (policy): ok — 0 errors, 0 warnings',
      '<stdin>: ok — 0 errors, 0 warnings',
    ]);
    const second = await intentguard(['check', '-', ...policy], { input: compiled.stdout });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('<stdin> composes its own policy');
    // Three processes on a shared machine: explain's equality with the texts is test/cli's.
  }, 90_000);

  it('exits 2 on usage errors', async () => {
    const result = await intentguard(['check', restaurant.spec, '--states']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("option '--states <file>' argument missing");
  });

  it('ends quietly when its reader stops early', async () => {
    const result = await intentguard(['demo'], { stopReadingAfter: 1 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
