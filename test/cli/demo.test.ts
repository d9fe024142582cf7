import { describe, expect, it } from 'vitest';
import { demoScenarios } from '../../src/cli/demo/scenarios.js';
import { ansiEscape, jsonLines, lines, run } from './run.js';

interface DemoLine {
  readonly scenario: string;
  readonly propose?: unknown;
  readonly verdict?: { readonly decision: string; readonly reasons: readonly { code: string }[] };
  readonly observe?: unknown;
  readonly resolve?: { readonly approved: boolean };
  readonly result?: { readonly status: { readonly done: boolean } };
}

describe('intentguard demo', () => {
  it('runs both scenarios offline and exits 0', async () => {
    const result = await run(['demo'], { env: {} });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(demoScenarios).toHaveLength(2);
    for (const scenario of demoScenarios) {
      expect(result.stdout).toContain(`━━ ${scenario.title}`);
      expect(result.stdout).toContain(`User: ${scenario.instruction}`);
    }
    // Each scenario ends its agent run finished, and so does the tool agent's.
    expect(lines(result.stdout).filter((line) => line.startsWith('Result: finished'))).toHaveLength(
      3,
    );
  });

  it('drives a tool agent through the AI SDK adapter: refusal, feedback, correction, approval, done', async () => {
    const { stdout } = await run(['demo'], { env: {} });
    const scene = stdout.slice(stdout.indexOf('━━ A tool agent in the Vercel AI SDK loop'));
    expect(scene.length).toBeGreaterThan(0);
    const order = [
      'model    BankTransfer {"to":"Alice","amount":900}',
      'guard    ↺ reject · guard-reject; the model reads:',
      'never move more than the user asked for',
      'model    BankTransfer {"to":"Alice","amount":500}',
      'guard    ↺ revise · unmet-conditions',
      'model    BankCheckBalance {}',
      'guard    ✓ run BankCheckBalance',
      'tool     BankCheckBalance → {"balance":1500}',
      'guard    ? ask the person: Transfers money from the checking account to a payee (BankTransfer) with to: "Alice", amount: 500?',
      'server   request ends: waiting for the person',
      'person   approves',
      'guard    ✓ approved: run',
      'tool     BankTransfer → sent $500 to Alice',
      'guard    ✓ finish: the task is done',
      'server   request ends: finished',
      'Result: finished, the task is done.',
    ];
    let at = 0;
    for (const expected of order) {
      const found = scene.indexOf(expected, at);
      expect(found, expected).toBeGreaterThanOrEqual(at);
      at = found + expected.length;
    }
    // The transfer ran exactly once, after the approval.
    expect(scene.split('BankTransfer → sent').length - 1).toBe(1);
  });

  it('shows every kind of decision with its reason code', async () => {
    const { stdout } = await run(['demo']);
    expect(stdout).toContain('✓ allow');
    expect(stdout).toContain('? confirm · rule-confirm');
    expect(stdout).toContain('↺ revise (soft) · soft-deviation');
    expect(stdout).toContain('↺ revise (hard) · premature-finish');
    expect(stdout).toContain('↺ revise (hard) · unplanned-critical');
    // The agent cannot claim what the app reports (the slot's availability).
    expect(stdout).toContain('↺ revise (hard) · invalid-proposal');
    expect(stdout).toContain('ReserveInfo.available is observed');
    expect(stdout).toContain('✗ reject · guard-reject');
    expect(stdout).toContain('user approves');
  });

  it('prints no ANSI escapes when stdout is not a terminal', async () => {
    const result = await run(['demo'], { stdoutIsTerminal: false, stderrIsTerminal: true });
    expect(result.stdout).not.toMatch(ansiEscape);
  });

  it('colours its output on a terminal, unless --no-color', async () => {
    const plain = await run(['demo']);
    const coloured = await run(['demo'], { stdoutIsTerminal: true });
    expect(coloured.code).toBe(0);
    expect(coloured.stdout).toMatch(ansiEscape);
    expect(coloured.stdout).toContain('\u001b[32m✓ allow\u001b[0m');
    expect(coloured.stdout).toContain('\u001b[31m✗ reject');
    // The colours are all it adds.
    expect(coloured.stdout.replace(/\u001b\[\d+m/g, '')).toBe(plain.stdout);

    const noColor = await run(['demo', '--no-color'], { stdoutIsTerminal: true });
    expect(noColor.code).toBe(0);
    expect(noColor.stdout).toBe(plain.stdout);
  });

  it('--json prints one parseable JSON line per event, with verdicts', async () => {
    const result = await run(['demo', '--json'], { stdoutIsTerminal: true });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(ansiEscape);
    const all = jsonLines(result.stdout) as (DemoLine & {
      scene?: string;
      event?: { kind: string };
    })[];
    const events = all.filter((event) => event.scene === undefined);
    const scene = all.filter((event) => event.scene === 'tool agent');
    expect(scene.map((event) => event.event?.kind)).toContain('approval');
    expect(scene.at(-1)?.event?.kind).toBe('finish');
    const steps = demoScenarios.reduce((total, scenario) => total + scenario.steps.length, 0);
    expect(events).toHaveLength(steps);
    for (const scenario of demoScenarios) {
      const own = events.filter((event) => event.scenario === scenario.title);
      expect(
        own.map((event) => (event.verdict ? 'propose' : event.observe ? 'observe' : 'resolve')),
      ).toEqual(scenario.steps.map((step) => step.kind));
    }
    const verdicts = events.flatMap((event) => (event.verdict ? [event.verdict] : []));
    expect(new Set(verdicts.map((verdict) => verdict.decision))).toEqual(
      new Set(['allow', 'confirm', 'revise', 'reject']),
    );
    for (const event of events) {
      if (event.verdict) expect(event.propose).toBeDefined();
      else expect(event.result?.status).toHaveProperty('done');
    }
    // Both runs end with the task finished.
    const finishes = events.filter(
      (event) => (event.propose as { finish?: boolean } | undefined)?.finish === true,
    );
    expect(finishes.at(-1)?.verdict?.decision).toBe('allow');
  });

  it('takes no arguments', async () => {
    const result = await run(['demo', 'restaurant']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });
});
