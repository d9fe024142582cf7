import { describe, expect, it } from 'vitest';
import { examples, readText, restaurant, restaurantStates } from './examples.js';
import { ansiEscape, lines, run } from './run.js';

const typeError = 'R1: RestaurantInfo(name = 5) -> Reserve\nR2: Reserve -> Done\n';
const syntaxError = 'R1: RestaurantInfo(name = ) -> Reserve\nReserve -> Done\n';
const warningOnly =
  'R1: RestaurantInfo(name = R) & ReserveInfo(available = true) -> Reserve\nReserve -> Done\n';

interface CheckJson {
  readonly file: string;
  readonly schema: string | null;
  readonly ok: boolean;
  readonly errors: number;
  readonly warnings: number;
  readonly diagnostics: readonly {
    readonly code: string;
    readonly severity: string;
    readonly message: string;
    readonly file: string;
    readonly path?: string;
    readonly range?: { readonly start: { readonly line: number; readonly column: number } };
  }[];
}

describe('intentguard check', () => {
  it.each(examples)('$name: its spec checks against its schema', async (example) => {
    const result = await run(['check', example.spec, ...example.schemaArgs]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`${example.spec}: ok — 0 errors, 0 warnings\n`);
    expect(result.code).toBe(0);
  });

  it.each(examples)('$name: --json reports ok with no diagnostics', async (example) => {
    const result = await run(['check', example.spec, ...example.schemaArgs, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      file: example.spec,
      schema: example.schemaArgs[1],
      ok: true,
      errors: 0,
      warnings: 0,
      diagnostics: [],
    });
  });

  it('a type error exits 1 with file:line:column and a caret under the value', async () => {
    const result = await run(['check', 'bad.intent', '--states', restaurantStates], {
      files: { 'bad.intent': typeError },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const out = lines(result.stdout);
    expect(out[0]).toMatch(/^error\[type-mismatch\]: 'name' is text, but 5 is a number\./);
    expect(out).toContain('  --> bad.intent:1:27');
    const excerpt = out.indexOf('1 | R1: RestaurantInfo(name = 5) -> Reserve');
    expect(excerpt).toBeGreaterThan(0);
    // The caret sits under the 5 (column 27 of the source line).
    const caretLine = out[excerpt + 1] ?? '';
    expect(caretLine.indexOf('^') - caretLine.indexOf('|')).toBe(
      (out[excerpt] ?? '').indexOf('5') - (out[excerpt] ?? '').indexOf('|'),
    );
    expect(out.at(-1)).toBe('bad.intent: invalid — 1 error, 0 warnings');
    expect(result.stdout).not.toMatch(ansiEscape);
  });

  it('a type error with --json gives a diagnostic with its code and range', async () => {
    const result = await run(['check', 'bad.intent', '--states', restaurantStates, '--json'], {
      files: { 'bad.intent': typeError },
    });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as CheckJson;
    expect(report).toMatchObject({ file: 'bad.intent', ok: false, errors: 1, warnings: 0 });
    expect(report.diagnostics).toHaveLength(1);
    expect(report.diagnostics[0]).toMatchObject({
      code: 'type-mismatch',
      severity: 'error',
      file: 'bad.intent',
      range: { start: { line: 1, column: 27 } },
    });
  });

  it('a syntax error exits 1 with its location', async () => {
    const result = await run(['check', 'broken.intent', '--states', restaurantStates], {
      files: { 'broken.intent': syntaxError },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^error\[unexpected-token\]/);
    expect(result.stdout).toContain('--> broken.intent:1:27');
    expect(lines(result.stdout).at(-1)).toMatch(
      /^broken\.intent: invalid — \d+ errors?, 0 warnings$/,
    );
  });

  it('all errors are reported, not just the first', async () => {
    const result = await run(['check', 'two.intent', '--states', restaurantStates, '--json'], {
      files: {
        'two.intent':
          'R1: RestaurantInfo(name = 5) -> Reserve\nR2: ReserveInfo(time = "x") & Reserve -> Done\n',
      },
    });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as CheckJson;
    expect(report.errors).toBe(2);
    expect(report.diagnostics.map((diagnostic) => diagnostic.range?.start.line)).toEqual([1, 2]);
  });

  it('warnings alone exit 0 and are printed with their location', async () => {
    const result = await run(['check', 'warn.intent', '--states', restaurantStates], {
      files: { 'warn.intent': warningOnly },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^warning\[bare-text-value\]/);
    expect(result.stdout).toContain('--> warn.intent:1:27');
    expect(result.stdout).toContain('warn.intent: ok — 0 errors, 1 warning\n');
    const json = await run(['check', 'warn.intent', '--states', restaurantStates, '--json'], {
      files: { 'warn.intent': warningOnly },
    });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, errors: 0, warnings: 1 });
  });

  it("reports the schema's own warnings with their JSON path", async () => {
    const tools = JSON.stringify({
      tools: [
        {
          name: 'Send',
          inputSchema: { type: 'object', properties: { to: { type: 'string' }, meta: true } },
        },
      ],
    });
    const files = { 'tools.json': tools, 'send.intent': 'Send(to = "a") -> Sent\nSent -> Done\n' };
    const result = await run(['check', 'send.intent', '--tools', 'tools.json'], { files });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('warning[schema-type-approximated]');
    expect(result.stdout).toContain('tools.json at $.tools[0].inputSchema.properties.meta');
    expect(result.stdout).toContain('send.intent: ok — 0 errors, 1 warning');
    const json = await run(['check', 'send.intent', '--tools', 'tools.json', '--json'], { files });
    const report = JSON.parse(json.stdout) as CheckJson;
    expect(report.warnings).toBe(1);
    expect(report.diagnostics[0]).toMatchObject({
      code: 'schema-type-approximated',
      file: 'tools.json',
      path: '$.tools[0].inputSchema.properties.meta',
    });
  });

  it('colours diagnostics only when stdout is a terminal', async () => {
    const files = { 'bad.intent': typeError };
    const plain = await run(['check', 'bad.intent', '--states', restaurantStates], { files });
    const terminal = await run(['check', 'bad.intent', '--states', restaurantStates], {
      files,
      stdoutIsTerminal: true,
    });
    expect(plain.stdout).not.toMatch(ansiEscape);
    expect(terminal.stdout).toMatch(ansiEscape);
    expect(terminal.code).toBe(1);
  });

  it('- reads the spec from standard input and names it <stdin>', async () => {
    const ok = await run(['check', '-', '--states', restaurantStates], {
      stdin: readText(restaurant.spec),
    });
    expect(ok).toMatchObject({ code: 0, stdout: '<stdin>: ok — 0 errors, 0 warnings\n' });
    expect(ok.stdinReads).toBe(1);
    const bad = await run(['check', '-', '--states', restaurantStates], { stdin: typeError });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('--> <stdin>:1:27');
  });

  it('- for the schema reads it from standard input', async () => {
    const result = await run(['check', restaurant.spec, '--states', '-'], {
      stdin: readText(restaurantStates),
    });
    expect(result.code).toBe(0);
  });

  it('- for both the spec and the schema is a usage error', async () => {
    const result = await run(['check', '-', '--states', '-'], { stdin: '{}' });
    expect(result.code).toBe(2);
    expect(result.stdinReads).toBe(0);
    expect(result.stderr).toContain('only one input can be read from standard input');
    expect(result.stderr).toContain('SPEC and --states');
  });

  it('a missing spec file exits 2 and names the path', async () => {
    const result = await run(['check', '/no/such/spec.intent', '--states', restaurantStates]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("'/no/such/spec.intent'");
    expect(result.stderr).toContain('no such file');
  });

  it('a missing schema file exits 2 and names the path', async () => {
    for (const flag of ['--states', '--tools']) {
      const result = await run(['check', restaurant.spec, flag, '/no/such/schema.json']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain("'/no/such/schema.json'");
    }
  });

  it('a directory for the spec exits 2', async () => {
    const result = await run(['check', '/tmp', '--states', restaurantStates]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot read spec '/tmp': it is a directory");
  });

  it('--states and --tools together are one schema: a states file given as tools exits 2', async () => {
    const result = await run([
      'check',
      restaurant.spec,
      '--states',
      restaurantStates,
      '--tools',
      restaurantStates,
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Not a recognised tool schema');
  });

  it('no schema at all exits 2', async () => {
    const result = await run(['check', restaurant.spec]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--states FILE or --tools FILE');
  });

  it('a schema that fails to load exits 2 with its diagnostics', async () => {
    const files = {
      'types.json': JSON.stringify({ A: { variables: [{ name: 'x', type: 'Blob' }] } }),
      'truncated.json': '{"A": ',
    };
    const unknownType = await run(['check', restaurant.spec, '--states', 'types.json'], { files });
    expect(unknownType.code).toBe(2);
    expect(unknownType.stdout).toBe('');
    expect(unknownType.stderr).toContain(
      "error[schema-unknown-type]: Unknown variable type 'Blob'.",
    );
    expect(unknownType.stderr).toContain('types.json at $.A.variables[0].type');
    expect(unknownType.stderr).toContain("the schema 'types.json' could not be loaded");

    const truncated = await run(['check', restaurant.spec, '--states', 'truncated.json'], {
      files,
    });
    expect(truncated.code).toBe(2);
    expect(truncated.stderr).toContain('error[schema-invalid-json]');

    const notTools = await run(['check', restaurant.spec, '--tools', restaurantStates]);
    expect(notTools.code).toBe(2);
    expect(notTools.stderr).toContain('error[schema-unrecognized-tools]');
  });
});
