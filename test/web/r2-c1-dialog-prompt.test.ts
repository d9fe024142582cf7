import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verdictNumber } from './page-setup.js';
import { type FixtureServer, launchBrowser, startFixtureServer } from './support.js';

/**
 * C1 in the web dialog (Chromium): a long free-text field placed before the amount does
 * not push the amount out of the question; the long text is cut in its middle.
 */

let browser: Browser;
let fixture: FixtureServer;
let page: Page;
let errors: string[];

beforeAll(async () => {
  [browser, fixture] = await Promise.all([launchBrowser(), startFixtureServer()]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await fixture?.close();
});
beforeEach(async () => {
  page = await browser.newPage();
  errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
});
afterEach(async () => {
  expect(errors).toEqual([]);
  await page.close();
});

describe('C1: the web dialog shows the amount, whatever comes before it', () => {
  it('a 5,000-character note before the amount', async () => {
    await page.goto(`${fixture.url}/`, { timeout: 15_000 });
    await page.waitForFunction(() => 'lib' in window, undefined, { timeout: 10_000 });
    await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's globals
      const w = window as any;
      const lib = w.lib;
      document.body.insertAdjacentHTML(
        'beforeend',
        '<form id="fee-form"><label for="fee-note">Note</label><textarea id="fee-note" name="note"></textarea><label for="fee">Amount</label><input id="fee" name="amount" value="30"><button id="fee-button">Pay fee</button></form>',
      );
      document.querySelector('#fee-form')?.addEventListener('submit', (event) => {
        event.preventDefault();
      });
      const states = lib.defineStates({
        PayFee: {
          kind: 'action',
          critical: true,
          variables: [
            { name: 'note', type: 'Text' },
            { name: 'amount', type: 'Number' },
          ],
        },
      });
      const web = lib.createWebGuard({
        guard: lib.createGuard(
          '@confirm(financial, "Confirm the fee")\nPayFee(amount <= 35) -> Paid\nPaid -> Done\n',
          states.schema,
          { finishWaitsForResults: false },
        ),
        confirm: lib.confirmWithDialog,
      });
      web.guardAction('#fee-form', {
        action: 'PayFee',
        args: ({ formData }: { formData: FormData }) => ({
          note: String(formData.get('note')),
          amount: Number(formData.get('amount')),
        }),
      });
    });
    await page.fill('#fee-note', `Thanks for the evening. ${'n'.repeat(5000)} See you soon.`);
    await page.getByRole('button', { name: 'Pay fee' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor({ timeout: 5000 });
    const text = (await dialog.locator('p').textContent()) ?? '';
    expect(text.startsWith('Run PayFee with amount: 30, note: "Thanks for the evening. n')).toBe(
      true,
    );
    expect(text).toMatch(
      /n…\[[\d,]+ characters not shown\]…n+ See you soon\."\? Why: Confirm the fee/,
    );
    // What the person sees: docs/web.md shows it.
    await dialog.screenshot({
      path: join(import.meta.dirname, '../../docs/images/web-confirm-dialog.png'),
    });
    await page.getByRole('button', { name: 'Deny' }).click();
    expect(await verdictNumber(page, 2)).toMatchObject({ status: 'denied' });
  });
});
