import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { PublishedVerdict } from '../../src/integrations/web/index.js';

/**
 * The agent side of the demo: a browser agent that drives the app in Chromium and reads
 * why it was stopped from `window.intentguard` (what any agent can read: a Playwright
 * script, an extension, a computer-use model's harness).
 */

export interface Step {
  readonly step: number;
  /** Who acted: the agent, or the person answering the confirmation dialog. */
  readonly actor: 'agent' | 'person';
  readonly does: string;
  /** The verdict the action got (none for unguarded actions such as typing a search). */
  readonly verdict?: PublishedVerdict;
  readonly screenshot?: string;
}

export interface DemoRun {
  readonly steps: readonly Step[];
  /** Whether the guard allowed the final finish. */
  readonly finished: boolean;
  /** The confirmation screen's text at the end. */
  readonly confirmation: string;
}

export interface RunOptions {
  /** The demo server's URL. */
  readonly url: string;
  /** Where screenshots go. */
  readonly out: string;
  /** Each step as it happens (the CLI prints it). */
  readonly onStep?: (step: Step) => void;
  /** The session clock, e.g. `2026-11-23T12:00` (default: now). */
  readonly now?: string;
  readonly timeZone?: string;
  /** A Chromium to reuse (tests); otherwise Debian's /usr/bin/chromium is launched. */
  readonly browser?: Browser;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 30_000,
  });
}

/** The page's latest verdict, once no check is still on its way. */
export async function lastVerdict(page: Page): Promise<PublishedVerdict | undefined> {
  await page.waitForFunction(
    () => (window as unknown as { intentguard?: { pending: number } }).intentguard?.pending === 0,
    undefined,
    { timeout: 10_000 },
  );
  return page.evaluate(
    () => (window as unknown as { intentguard: { last?: PublishedVerdict } }).intentguard.last,
  );
}

/** Runs `act` and waits for the verdict it caused (the one after `before`). */
export async function verdictOf(
  page: Page,
  act: () => Promise<unknown>,
): Promise<PublishedVerdict | undefined> {
  const before = await page.evaluate(
    () =>
      (window as unknown as { intentguard: { verdicts: unknown[] } }).intentguard.verdicts.length,
  );
  await act();
  await page.waitForFunction(
    (count) => {
      const guard = (window as unknown as { intentguard: { verdicts: unknown[]; pending: number } })
        .intentguard;
      return guard.verdicts.length > count && guard.pending === 0;
    },
    before,
    { timeout: 10_000 },
  );
  return lastVerdict(page);
}

/**
 * Runs `act` and returns the verdict it caused, or undefined when it touched nothing
 * guarded (typing a search, opening a menu). A check starts while the event is
 * dispatched, so once `act` resolves either a verdict exists or one is pending.
 */
export async function actionVerdict(
  page: Page,
  act: () => Promise<unknown>,
): Promise<PublishedVerdict | undefined> {
  const count = () =>
    page.evaluate(
      () =>
        (window as unknown as { intentguard: { verdicts: unknown[] } }).intentguard.verdicts.length,
    );
  const before = await count();
  await act();
  const last = await lastVerdict(page);
  return (await count()) > before ? last : undefined;
}

export function pageUrl(options: Pick<RunOptions, 'url' | 'now' | 'timeZone'>): string {
  const query = new URLSearchParams();
  if (options.now) query.set('now', options.now);
  if (options.timeZone) query.set('tz', options.timeZone);
  const text = query.toString();
  return text ? `${options.url}/?${text}` : `${options.url}/`;
}

/** The scripted agent: the five moments the demo is about, in order. */
export async function runScriptedAgent(options: RunOptions): Promise<DemoRun> {
  mkdirSync(options.out, { recursive: true });
  const browser = options.browser ?? (await launchChromium());
  const context = await browser.newContext({ viewport: { width: 900, height: 760 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const steps: Step[] = [];
  let shots = 0;
  const record = async (
    actor: Step['actor'],
    does: string,
    verdict?: PublishedVerdict,
    shot?: string,
  ) => {
    let screenshot: string | undefined;
    if (shot) {
      shots += 1;
      screenshot = join(options.out, `${String(shots).padStart(2, '0')}-${shot}.png`);
      await page.screenshot({ path: screenshot });
    }
    const step: Step = {
      step: steps.length + 1,
      actor,
      does,
      ...(verdict ? { verdict } : {}),
      ...(screenshot ? { screenshot } : {}),
    };
    steps.push(step);
    options.onStep?.(step);
  };
  try {
    await page.goto(pageUrl(options), { timeout: 15_000 });
    await page.getByLabel('Restaurant name').fill('R');
    await page.getByRole('button', { name: 'Search' }).click();
    await record('agent', 'searches for "R"', undefined, 'search');

    let verdict = await verdictOf(page, () =>
      page.getByRole('button', { name: 'Open R', exact: true }).click(),
    );
    await record('agent', 'opens restaurant R', verdict);

    verdict = await verdictOf(page, () => page.getByLabel('Time').selectOption('20:00'));
    await record('agent', 'picks 20:00 (the user said before 7 PM)', verdict, 'wrong-time');

    verdict = await verdictOf(page, () => page.getByLabel('Time').selectOption('18:00'));
    await record('agent', 'picks 18:00 instead', verdict);

    verdict = await verdictOf(page, () => page.getByRole('button', { name: 'Reserve' }).click());
    await record('agent', 'presses Reserve', verdict);

    verdict = await page.evaluate(() =>
      (
        window as unknown as { intentguard: { finish(): Promise<PublishedVerdict> } }
      ).intentguard.finish(),
    );
    await record(
      'agent',
      'says it is done (the deposit is not paid yet)',
      verdict,
      'premature-finish',
    );

    await page.getByLabel('Deposit (€)').fill('50');
    verdict = await verdictOf(page, () =>
      page.getByRole('button', { name: 'Pay deposit' }).click(),
    );
    await record('agent', 'tries to pay a deposit of 50 €', verdict, 'larger-deposit');

    await page.getByLabel('Deposit (€)').fill('20');
    verdict = await verdictOf(page, () =>
      page.getByRole('button', { name: 'Pay deposit' }).click(),
    );
    await page.getByRole('dialog').waitFor({ timeout: 10_000 });
    await record('agent', 'pays the deposit of 20 €', verdict, 'confirmation-dialog');

    verdict = await verdictOf(page, () =>
      page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click(),
    );
    await page.getByRole('heading', { name: 'Reservation confirmed' }).waitFor({ timeout: 10_000 });
    await record('person', 'approves the payment in the dialog', verdict);

    verdict = await page.evaluate(() =>
      (
        window as unknown as { intentguard: { finish(): Promise<PublishedVerdict> } }
      ).intentguard.finish(),
    );
    await record('agent', 'says it is done', verdict, 'finished');
    const confirmation = (await page.locator('main').textContent()) ?? '';
    if (errors.length > 0) throw new Error(`the page reported errors: ${errors.join('; ')}`);
    return { steps, finished: verdict?.status === 'allowed', confirmation };
  } finally {
    await context.close();
    if (!options.browser) await browser.close();
  }
}

/** One line per step, as the demo prints it. */
export function describeStep(step: Step): string {
  const head = `${String(step.step).padStart(2)}. [${step.actor}] ${step.does}`;
  const verdict = step.verdict;
  if (!verdict) return head;
  const codes = verdict.codes.length > 0 ? ` [${verdict.codes.join(', ')}]` : '';
  const lines = [
    `${head}\n    → ${verdict.status}: ${verdict.decision}${verdict.severity ? ` (${verdict.severity})` : ''}${codes}`,
  ];
  if (verdict.status !== 'allowed' && verdict.status !== 'approved') {
    const text = verdict.status === 'asking' ? verdict.prompt : verdict.message;
    for (const line of text.split('\n')) lines.push(`      ${line}`);
  }
  if (step.screenshot) lines.push(`    screenshot: ${step.screenshot}`);
  return lines.join('\n');
}
