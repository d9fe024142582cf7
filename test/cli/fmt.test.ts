import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, print, unwrap } from '../../src/language/index.js';
import { example, examples, readText, restaurant } from './examples.js';
import { lines, run } from './run.js';

const canonical = (source: string): string => print(unwrap(parse(source)).ast);

const clock = example('clock');
const syntaxError = 'R1: RestaurantInfo(name = ) -> Reserve\nReserve -> Done\n';

describe('intentguard fmt', () => {
  let directory = '';
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'intentguard-fmt-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it.each(examples)('$name: prints a canonical form with the same meaning', async (example) => {
    const source = readText(example.spec);
    const result = await run(['fmt', example.spec]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(canonical(source));
    // Re-parsing the output gives the same tree, and formatting it again changes nothing.
    expect(canonical(result.stdout)).toBe(canonical(source));
    const again = await run(['fmt', '-'], { stdin: result.stdout });
    expect(again.stdout).toBe(result.stdout);
    const check = await run(['fmt', '-', '--check'], { stdin: result.stdout });
    expect(check).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('turns Unicode operators and numbered rules into the ASCII form', async () => {
    const result = await run(['fmt', clock.spec]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[→∧]/);
    expect(result.stdout).toContain(
      'SetAlarm() & StartTimer() & TimerCurrentState(timer_status = Running) -> Done',
    );
    // Comments survive.
    expect(lines(result.stdout)[0]).toMatch(/^# Make an alarm at 3:00 AM/);
  });

  it('--check exits 1 on non-canonical input and prints nothing on stdout', async () => {
    const result = await run(['fmt', clock.spec, '--check']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${clock.spec}: not in canonical form\n`);
  });

  it('--check exits 0 silently on canonical input', async () => {
    const source = readText(restaurant.spec);
    expect(canonical(source)).toBe(source);
    const result = await run(['fmt', restaurant.spec, '--check']);
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('--write rewrites a non-canonical file in place', async () => {
    const path = join(directory, 'clock.intent');
    await copyFile(clock.spec, path);
    const original = await readFile(path, 'utf8');
    const result = await run(['fmt', path, '--write']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`${path}: formatted\n`);
    const rewritten = await readFile(path, 'utf8');
    expect(rewritten).not.toBe(original);
    expect(rewritten).toBe(canonical(original));

    const second = await run(['fmt', path, '--write']);
    expect(second.code).toBe(0);
    expect(second.stderr).toBe(`${path}: already canonical\n`);
    expect(await readFile(path, 'utf8')).toBe(rewritten);
  });

  it('--write leaves a file with syntax errors untouched and exits 1', async () => {
    const path = join(directory, 'broken.intent');
    await writeFile(path, syntaxError);
    const result = await run(['fmt', path, '--write']);
    expect(result.code).toBe(1);
    expect(await readFile(path, 'utf8')).toBe(syntaxError);
  });

  it('--write with standard input is a usage error', async () => {
    const result = await run(['fmt', '-', '--write'], { stdin: readText(restaurant.spec) });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--write needs a file');
  });

  it('syntax errors exit 1 with the location on stderr and nothing on stdout', async () => {
    const result = await run(['fmt', 'broken.intent'], { files: { 'broken.intent': syntaxError } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error[unexpected-token]');
    expect(result.stderr).toContain('--> broken.intent:1:27');
    expect(result.stderr).toContain('1 | R1: RestaurantInfo(name = ) -> Reserve');
    expect(result.stderr).toContain('broken.intent: not formatted');
  });

  it('--json gives the formatted text and whether it changed', async () => {
    const result = await run(['fmt', clock.spec, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      file: clock.spec,
      ok: true,
      changed: true,
      formatted: canonical(readText(clock.spec)),
    });
    const unchanged = await run(['fmt', restaurant.spec, '--json']);
    expect(JSON.parse(unchanged.stdout)).toMatchObject({ ok: true, changed: false });
  });

  it('--json on syntax errors gives the diagnostics and exits 1', async () => {
    const result = await run(['fmt', '-', '--json'], { stdin: syntaxError });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      file: string;
      ok: boolean;
      diagnostics: { code: string; range: { start: { line: number; column: number } } }[];
    };
    expect(report).toMatchObject({ file: '<stdin>', ok: false });
    expect(report.diagnostics[0]).toMatchObject({
      code: 'unexpected-token',
      range: { start: { line: 1, column: 27 } },
    });
  });

  it('does not need a schema: type errors are not its business', async () => {
    const result = await run(['fmt', '-'], { stdin: 'RestaurantInfo(name = 5) -> Done\n' });
    expect(result).toMatchObject({ code: 0, stdout: 'RestaurantInfo(name = 5) -> Done\n' });
  });

  it('a missing file exits 2 and names the path', async () => {
    const result = await run(['fmt', join(directory, 'missing.intent')]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`'${join(directory, 'missing.intent')}': no such file`);
  });
});
