import type { Page } from 'playwright-core';
import type { PublishedVerdict } from '../../src/integrations/web/index.js';

export interface PageSetup {
  readonly url: string;
  readonly now: string;
  readonly remote?: { readonly url: string; readonly token: string; readonly timeoutMs?: number };
  /**
   * Who answers a confirmation: `'service'`, the service's approvals page; `'dialog'`
   * (the default here), the in-page dialog the host opts into; `'default'`, what
   * `createWebGuard` does when given no `confirm`.
   */
  readonly confirm?: 'service' | 'dialog' | 'default';
  readonly approvalTimeoutMs?: number;
  /** The operator's policy text: the remote session's, or the page's own guard's. */
  readonly policy?: string;
  /** A compiled composition (`writeCompiledSpec(spec, policy)`) the page's own guard loads (`loadComposedGuard`). */
  readonly compiled?: unknown;
}

/**
 * Loads the fixture page and installs, in the page, the app's handlers (which record what
 * ran in `window.ran`) and the web guard with one trigger per kind.
 */
export async function setUpPage(page: Page, setup: PageSetup): Promise<void> {
  await page.goto(`${setup.url}/`, { timeout: 15_000 });
  await page.waitForFunction(() => 'lib' in window, undefined, { timeout: 10_000 });
  await page.evaluate(async (options) => {
    // biome-ignore lint/suspicious/noExplicitAny: the page's globals
    const w = window as any;
    const lib = w.lib;
    const ran: string[] = [];
    w.ran = ran;
    const today = options.now.slice(0, 10);
    const confirm = options.confirm ?? 'dialog';
    const answering = confirm === 'dialog' ? { confirm: lib.confirmWithDialog } : {};
    w.web = options.remote
      ? lib.createWebGuard({
          remote: options.remote,
          spec: lib.specText,
          states: lib.restaurantStates,
          ...(options.policy !== undefined ? { policy: options.policy } : {}),
          now: options.now,
          timeZone: 'UTC',
          ...(confirm === 'service'
            ? {
                confirm,
                approvalPollMs: 100,
                approvalTimeoutMs: options.approvalTimeoutMs ?? 20_000,
              }
            : answering),
        })
      : lib.createWebGuard({
          guard:
            options.compiled !== undefined
              ? await lib.loadComposedGuard(options.compiled, {
                  now: options.now,
                  timeZone: 'UTC',
                  finishWaitsForResults: false,
                })
              : lib.createGuard(lib.specText, lib.restaurantStates.schema, {
                  now: options.now,
                  timeZone: 'UTC',
                  finishWaitsForResults: false,
                  ...(options.policy !== undefined ? { policy: options.policy } : {}),
                }),
          ...answering,
        });
    const $ = (selector: string) => document.querySelector(selector) as HTMLElement;
    // The app's handlers, as an app has them.
    $('#open').addEventListener('click', () => ran.push('open'));
    $('#reserve').addEventListener('click', () => ran.push('reserve-click'));
    $('#reserve').addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') ran.push('reserve-key');
    });
    document.addEventListener('change', (event) => {
      const target = event.target as HTMLSelectElement;
      if (target.id === 'time') ran.push(`time:${target.value}`);
    });
    $('#note').addEventListener('input', (event) =>
      ran.push(`note:${(event.target as HTMLInputElement).value}`),
    );
    $('#pay').addEventListener('submit', (event) => {
      event.preventDefault();
      ran.push(`pay:${(document.querySelector('#amount') as HTMLInputElement).value}`);
    });
    w.web.guardAction('#open', {
      action: 'OpenRestaurant',
      updates: { RestaurantInfo: { name: 'R' } },
    });
    w.web.guardAction('#reserve', { action: 'Reserve' });
    w.web.guardAction('#time', {
      action: 'EditReservation',
      updates: ({ value }: { value: string }) => ({
        ReserveInfo: { date: today, time: value, party: 2 },
      }),
    });
    w.web.guardAction('#note', {
      action: 'OpenRestaurant',
      on: 'input',
      updates: ({ value }: { value: string }) => ({ RestaurantInfo: { name: value } }),
    });
    w.web.guardAction('#pay', {
      action: 'PayDeposit',
      args: ({ formData }: { formData: FormData }) => ({ amount: Number(formData.get('amount')) }),
    });
  }, setup);
}

/** What the app's handlers did so far. */
export function ran(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { ran: string[] }).ran.slice());
}

/** Every verdict so far, once nothing is on its way. */
export async function verdicts(page: Page): Promise<PublishedVerdict[]> {
  await page.waitForFunction(
    () => (window as unknown as { intentguard: { pending: number } }).intentguard.pending === 0,
    undefined,
    { timeout: 10_000 },
  );
  return page.evaluate(
    () =>
      (window as unknown as { intentguard: { verdicts: PublishedVerdict[] } }).intentguard.verdicts,
  );
}

/** Waits until there are `count` verdicts and returns the last. */
export async function verdictNumber(page: Page, count: number): Promise<PublishedVerdict> {
  await page.waitForFunction(
    (n) => {
      const guard = (window as unknown as { intentguard: { verdicts: unknown[]; pending: number } })
        .intentguard;
      return guard.verdicts.length >= n && guard.pending === 0;
    },
    count,
    { timeout: 10_000 },
  );
  const all = await verdicts(page);
  return all[count - 1] as PublishedVerdict;
}

/** The app reports facts (the page's own data code). */
export function observe(page: Page, updates: unknown): Promise<{ ok: boolean }> {
  return page.evaluate(
    (facts) =>
      (window as unknown as { web: { observe(u: unknown): Promise<{ ok: boolean }> } }).web.observe(
        facts,
      ),
    updates,
  );
}

/** Opens R, picks 18:00, observes availability, reserves and observes the deposit: the payment is next. */
export async function reachPayment(page: Page): Promise<void> {
  await page.click('#open');
  await page.selectOption('#time', '18:00');
  await observe(page, { ReserveInfo: { available: true } });
  await page.click('#reserve');
  await observe(page, { ReserveResult: { success: true, deposit: 20 } });
  const all = await verdicts(page);
  if (all.some((verdict) => verdict.status !== 'allowed'))
    throw new Error(
      `the way to the payment was blocked: ${JSON.stringify(all.map((v) => v.status))}`,
    );
}
