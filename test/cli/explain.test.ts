import { describe, expect, it } from 'vitest';
import { bank, examples, fixedNow, readText, restaurant, restaurantStates } from './examples.js';
import { lines, run } from './run.js';

interface ExplainedRule {
  readonly id: string;
  readonly head: string;
  readonly needs: string;
  readonly confirm?: string;
  readonly repeat?: string;
}

interface ExplainJson {
  readonly steps: readonly ExplainedRule[];
  readonly finish: readonly ExplainedRule[];
  readonly refused: readonly string[];
  readonly approval: readonly string[];
  readonly text: string;
}

describe('intentguard explain', () => {
  it('explains the bank example: its steps, both branches and the guard', async () => {
    const result = await run(['explain', bank.spec, ...bank.schemaArgs]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const out = lines(result.stdout);
    expect(out[0]).toBe('Steps:');
    expect(out[1]).toBe('1. BalanceKnown (R1): call BankCheckBalance.');
    expect(out[2]).toMatch(
      /^2\. Transferred \(R2; needs the user's approval \(financial: Confirm the transfer details with the user\)\): /,
    );
    expect(out[2]).toContain('balance greater than 1000');
    expect(out[2]).toContain('call BankTransfer with to equal to "Alice" and amount equal to 500');
    expect(out).toContain('The task is done when any of these holds:');
    expect(out).toContain('  a) Transferred (R3)');
    expect(out).toContain(
      '  b) BalanceKnown; BankCheckBalanceResult with balance at most 1000 (R4)',
    );
    expect(out).toContain('Always refused:');
    expect(out).toContain(
      '- BankTransfer with amount greater than 500 — never move more than the user asked for',
    );
  });

  it('--json gives steps, finish, refused, approval and the text', async () => {
    const text = await run(['explain', bank.spec, ...bank.schemaArgs]);
    const result = await run(['explain', bank.spec, ...bank.schemaArgs, '--json']);
    expect(result.code).toBe(0);
    const explanation = JSON.parse(result.stdout) as ExplainJson;
    expect(explanation.steps.map((step) => [step.id, step.head])).toEqual([
      ['R1', 'BalanceKnown'],
      ['R2', 'Transferred'],
    ]);
    expect(explanation.steps[1]?.confirm).toBe(
      'financial: Confirm the transfer details with the user',
    );
    expect(explanation.finish.map((rule) => [rule.id, rule.head])).toEqual([
      ['R3', 'Done'],
      ['R4', 'Done'],
    ]);
    expect(explanation.refused).toEqual([
      'BankTransfer with amount greater than 500 — never move more than the user asked for',
    ]);
    expect(explanation.approval).toEqual([]);
    expect(`${explanation.text}\n`).toBe(text.stdout);
  });

  it('shows @repeat and @confirm of the todoist example', async () => {
    const todoist = examples.find((candidate) => candidate.name === 'todoist');
    if (!todoist) throw new Error('todoist example missing');
    const result = await run(['explain', todoist.spec, ...todoist.schemaArgs, '--json']);
    expect(result.code).toBe(0);
    const explanation = JSON.parse(result.stdout) as ExplainJson;
    const deleted = explanation.steps.find((step) => step.head === 'Deleted');
    expect(deleted).toMatchObject({ repeat: 'may be repeated' });
    expect(deleted?.confirm).toMatch(/^safety: /);
  });

  it('--now resolves today', async () => {
    const result = await run(['explain', ...restaurantArgs(), '--now', fixedNow]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('date equal to 2025-03-14 (today)');
  });

  it('without --now, today is the current date', async () => {
    const before = new Date().toISOString().slice(0, 10);
    const result = await run(['explain', ...restaurantArgs()]);
    const after = new Date().toISOString().slice(0, 10);
    expect(result.code).toBe(0);
    const date = /date equal to (\d{4}-\d{2}-\d{2}) \(today\)/.exec(result.stdout)?.[1];
    expect([before, after]).toContain(date);
  });

  it('an invalid --now or --time-zone exits 2 before reading anything', async () => {
    const now = await run(['explain', ...restaurantArgs(), '--now', 'yesterday-ish']);
    expect(now.code).toBe(2);
    expect(now.stdout).toBe('');
    expect(now.stderr).toBe(
      "intentguard: --now: 'yesterday-ish' is not a date or date-time (use YYYY-MM-DDTHH:MM)\n",
    );
    const zone = await run(['explain', ...restaurantArgs(), '--time-zone', 'Mars/Olympus']);
    expect(zone.code).toBe(2);
    expect(zone.stderr).toContain("--time-zone: 'Mars/Olympus' is not an IANA time zone");
  });

  it('a spec with errors exits 1 with its diagnostics on stderr and nothing on stdout', async () => {
    const result = await run(['explain', '-', '--states', restaurantStates], {
      stdin: 'RestaurantInfo(name = 5) -> Done\n',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error[type-mismatch]');
    expect(result.stderr).toContain('--> <stdin>:1:23');
    expect(result.stderr).toContain("the spec '<stdin>' has errors");
  });

  it('reads the spec from standard input with -', async () => {
    const result = await run(['explain', '-', '--states', restaurantStates, '--now', fixedNow], {
      stdin: readText(restaurant.spec),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('1. Reserve (R1): ');
  });

  it('needs a schema; --states and --tools together are one schema', async () => {
    const none = await run(['explain', restaurant.spec]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('a schema is required');
    const both = await run([
      'explain',
      restaurant.spec,
      '--states',
      restaurantStates,
      '--tools',
      bank.schemaArgs[1],
    ]);
    // FORMATS.md §1: a schema may hold states and tools together (the host's facts beside
    // the tools); the spec reads the states it names from the merged schema.
    expect(both.code).toBe(0);
    expect(both.stdout).toContain('1. Reserve (R1): ');
  });

  it('a missing spec exits 2 and names it', async () => {
    const result = await run(['explain', 'nowhere.intent', '--states', restaurantStates]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot read spec 'nowhere.intent'");
  });
});

function restaurantArgs(): string[] {
  return [restaurant.spec, ...restaurant.schemaArgs];
}
