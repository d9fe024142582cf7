import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';

/**
 * D3: files were read with `readFile(path, 'utf8')`, so bytes that are not UTF-8 became
 * U+FFFD inside a literal (`"Al��ice"`) and `check` said ok. Now they are an input error
 * (exit 2) that says where: file, line, column and byte offset.
 */
const examples = new URL('../../examples/bank-transfer/', import.meta.url).pathname;
const encoder = new TextEncoder();
let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'intentguard-d3-'));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** `prefix`, the bytes FF FE, then `suffix`. */
function withBadBytes(prefix: string, suffix: string): Uint8Array {
  return Uint8Array.from([...encoder.encode(prefix), 0xff, 0xfe, ...encoder.encode(suffix)]);
}

const spec = withBadBytes(
  'BankCheckBalance() -> Known\nKnown & BankTransfer(to = "Al',
  'ice", amount = 500) -> Sent\nSent -> Done\n',
);

describe('D3: invalid UTF-8 is a located input error', () => {
  it('refuses a spec file with FF FE inside a string, naming line, column and offset', async () => {
    const path = join(directory, 'bad.intent');
    writeFileSync(path, spec);
    const result = await run(['check', path, '--tools', `${examples}tools.json`]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `intentguard: ${path}:2:30: the spec is not valid UTF-8: byte 0xFF at byte offset 57; save it as UTF-8\n`,
    );
  });

  it('refuses the same bytes on standard input', async () => {
    const result = await run(['check', '-', '--tools', `${examples}tools.json`], { stdin: spec });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('intentguard: <stdin>:2:30: the spec is not valid UTF-8');
  });

  it('refuses a tools file with invalid UTF-8 in a description', async () => {
    const original = readFileSync(`${examples}tools.json`, 'utf8');
    const at = original.indexOf('"description"') + '"description": "'.length;
    const path = join(directory, 'tools.json');
    writeFileSync(path, withBadBytes(original.slice(0, at), original.slice(at)));
    const result = await run(['check', `${examples}spec.intent`, '--tools', path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(`^intentguard: ${path}:\\d+:\\d+: the tools file is not valid UTF-8: byte 0xFF`),
    );
  });

  it('refuses a states file and a trace file with invalid UTF-8', async () => {
    const states = join(directory, 'states.json');
    writeFileSync(
      states,
      withBadBytes('{"A": {"variables": [{"name": "x', '", "type": "Text"}]}}'),
    );
    const checked = await run(['check', `${examples}spec.intent`, '--states', states]);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain(`${states}:1:33: the states file is not valid UTF-8`);

    const trace = join(directory, 'trace.jsonl');
    writeFileSync(
      trace,
      withBadBytes(
        '{"propose": {"action": {"name": "BankTransfer", "args": {"to": "Al',
        'ice", "amount": 500}}}}\n',
      ),
    );
    const replayed = await run([
      'replay',
      `${examples}spec.intent`,
      '--tools',
      `${examples}tools.json`,
      '--trace',
      trace,
    ]);
    expect(replayed.code).toBe(2);
    expect(replayed.stdout).toBe('');
    expect(replayed.stderr).toContain(`${trace}:1:67: the trace is not valid UTF-8`);
  });

  it('still reads well-formed UTF-8 with non-ASCII text and a byte order mark', async () => {
    const path = join(directory, 'good.intent');
    writeFileSync(path, '\ufeff# Überweisung an Zoë\nBankCheckBalance() -> Known\nKnown -> Done\n');
    const result = await run(['check', path, '--tools', `${examples}tools.json`]);
    expect(result.code).toBe(0);
  });
});
