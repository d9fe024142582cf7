import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Type-checks the page's code and the demo program with the project (the one is only
// bundled, the other only run as a process).
import type {} from '../../examples/web/app.js';
import type {} from '../../examples/web/demo.js';
import {
  agentSystemPrompt,
  readAgentAction,
  runModelAgent,
} from '../../examples/web/model-agent.js';
import { type DemoServer, startDemoServer } from '../../examples/web/server.js';
import {
  type FakeLlmServer,
  type SeenRequest,
  startFakeLlmServer,
} from '../formalize/support/fake-llm-server.js';
import { projectRoot } from '../http/server-process.js';
import { type ProcessRun, runProcess } from '../support/run-process.js';
import { launchBrowser } from './support.js';

/** Runs `npm run demo:web`'s program as a process; resolves with its exit code and output. */
function runDemo(args: readonly string[]): Promise<ProcessRun> {
  return runProcess(process.execPath, ['--import', 'tsx', 'examples/web/demo.ts', ...args], {
    cwd: projectRoot,
    timeoutMs: 90_000,
  });
}

/** `npm run demo:web`: the restaurant app in Chromium, driven by the scripted agent and by an LLM. */

let browser: Browser;
let demo: DemoServer;
let out: string;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'intentguard-demo-web-'));
  [browser, demo] = await Promise.all([launchBrowser(), startDemoServer()]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await demo?.close();
  rmSync(out, { recursive: true, force: true });
});

describe('the web demo', () => {
  it('guards with the compiled spec, and loads no regex engine, no confusables, no on-demand engine part (answer check, paths) and no dialog until needed', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    try {
      await page.goto(`${demo.url}/?now=2025-03-14T12:00&tz=UTC`);
      await page.getByRole('button', { name: 'Search' }).waitFor();
      expect(requested).toContain('/spec.compiled.json');
      const chunks = () => requested.filter((path) => path.startsWith('/chunks/'));
      // The spec has no regex, no path or binding and no guard on text: nothing more than the
      // app and its spec.
      expect(
        chunks().filter((path) => /regex|confusables|on-demand-part|dialog|remote/.test(path)),
      ).toEqual([]);
      // The agent's final answer is checked: the answer check and the confusables come now.
      const verdict = await page.evaluate(() =>
        (
          window as unknown as {
            intentguard: { finish(answer: string): Promise<{ codes: string[]; status: string }> };
          }
        ).intentguard.finish('Action: PayDeposit\nAction Input: {"amount": 20}\nDone.'),
      );
      expect(verdict.status).toBe('blocked');
      expect(verdict.codes).toContain('fabricated-action');
      expect(chunks().some((path) => path.includes('on-demand-part'))).toBe(true);
      expect(chunks().some((path) => path.includes('confusables'))).toBe(true);
      expect(chunks().some((path) => path.includes('regex'))).toBe(false);
    } finally {
      await page.close();
    }
  });

  it('an LLM agent drives it from the accessibility tree and the published feedback', async () => {
    const llm: FakeLlmServer = await startFakeLlmServer();
    try {
      // The model's turns: search, open R, a wrong time, then what the feedback says.
      llm.script(
        'other',
        '{"action":"fill","label":"Restaurant name","value":"R"}',
        '{"action":"click","role":"button","name":"Search"}',
        '{"action":"click","role":"button","name":"Open R"}',
        '{"action":"select","label":"Time","value":"20:00"}',
        (request: SeenRequest) =>
          // It read the soft deviation in its last message and corrects the time.
          request.messages.at(-1)?.content.includes('time earlier than 19:00')
            ? '{"action":"select","label":"Time","value":"18:00"}'
            : '{"action":"select","label":"Time","value":"20:00"}',
        'Sure! {"action":"click","role":"button","name":"Reserve"}',
        '{"action":"finish"}',
        (request: SeenRequest) =>
          request.messages.at(-1)?.content.includes('PayDeposit with amount equal to 20')
            ? '{"action":"click","role":"button","name":"Pay deposit"}'
            : '{"action":"finish"}',
        '{"action":"finish"}',
      );
      const run = await runModelAgent({
        url: demo.url,
        out: join(out, 'model'),
        browser,
        model: 'openai-compatible:web-agent',
        env: { OPENAI_BASE_URL: llm.url },
        maxSteps: 12,
      });
      const requests = llm.of('other');
      expect(requests[0]?.system).toBe(agentSystemPrompt);
      // The model sees the page as an accessibility tree.
      expect(requests[0]?.messages.at(-1)?.content).toContain('textbox "Restaurant name"');
      const guarded = run.steps.filter((step) => step.verdict);
      expect(
        guarded.map((step) => [step.actor, step.verdict?.action, step.verdict?.status]),
      ).toEqual([
        ['agent', 'OpenRestaurant', 'allowed'],
        ['agent', 'EditReservation', 'blocked'],
        ['agent', 'EditReservation', 'allowed'],
        ['agent', 'Reserve', 'allowed'],
        ['agent', 'finish', 'blocked'],
        ['agent', 'PayDeposit', 'asking'],
        ['person', 'PayDeposit', 'approved'],
        ['agent', 'finish', 'allowed'],
      ]);
      expect(run.finished).toBe(true);
      expect(llm.remaining('other')).toBe(0);
    } finally {
      await llm.close();
    }
  }, 60_000);

  it('the demo program prints each step, saves the screenshots and exits 0', async () => {
    const dir = join(out, 'program');
    const run = await runDemo(['--out', dir]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout;
    for (const expected of [
      '[agent] picks 20:00 (the user said before 7 PM)\n    → blocked: revise (soft) [soft-deviation]',
      '[agent] says it is done (the deposit is not paid yet)\n    → blocked: revise (hard) [premature-finish',
      'Roadmap:',
      '[agent] tries to pay a deposit of 50 €\n    → blocked: reject [guard-reject]',
      '[agent] pays the deposit of 20 €\n    → asking: confirm [rule-confirm]',
      '[person] approves the payment in the dialog\n    → approved',
      'Done: the guard agreed the task is complete.',
      'Deposit paid: 20 €.',
    ])
      expect(lines).toContain(expected);
    expect(readdirSync(dir).sort()).toEqual([
      '01-search.png',
      '02-wrong-time.png',
      '03-premature-finish.png',
      '04-larger-deposit.png',
      '05-confirmation-dialog.png',
      '06-finished.png',
    ]);
  }, 90_000);

  it('the demo program answers --help, and refuses an unknown flag', async () => {
    const help = await runDemo(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--model PROVIDER:MODEL');
    const wrong = await runDemo(['--bogus']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Unknown option '--bogus'");
  }, 30_000);

  it('reads only well-formed actions from the model', () => {
    expect(readAgentAction('{"action":"finish"}')).toEqual({ action: 'finish' });
    expect(readAgentAction('I will click. {"action":"click","name":"Reserve"}')).toEqual({
      action: 'click',
      role: 'button',
      name: 'Reserve',
    });
    expect(readAgentAction('no json here')).toMatch(/no JSON object/);
    expect(readAgentAction('{"action":"click","role":"script","name":"x"}')).toMatch(
      /not one of the actions/,
    );
    expect(readAgentAction('{"action":"eval","code":"observe()"}')).toMatch(
      /not one of the actions/,
    );
  });
});
