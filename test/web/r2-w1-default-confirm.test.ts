import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ran, reachPayment, setUpPage, verdictNumber } from './page-setup.js';
import { type FixtureServer, launchBrowser, startFixtureServer } from './support.js';

/**
 * W1: with the default configuration, the agent that drives the page (Playwright here:
 * its input is trusted input, like a person's mouse) cannot approve its own
 * confirmation — nothing in the page asks, the action is denied.
 */

const now = '2026-11-23T12:00';
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

/** What a Playwright agent does to approve its own payment: the review's two ways. */
async function tryToApprove(): Promise<void> {
  await page
    .getByRole('dialog')
    .getByRole('button', { name: 'Approve' })
    .click({ timeout: 1000 })
    .catch(() => undefined);
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
}

describe('W1: the default web guard asks nobody in the page', () => {
  it("the review's fee form: the driver finds no dialog to press and the fee is not paid", async () => {
    await page.goto(`${fixture.url}/`, { timeout: 15_000 });
    await page.waitForFunction(() => 'lib' in window, undefined, { timeout: 10_000 });
    await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's globals
      const w = window as any;
      const lib = w.lib;
      w.paid = [];
      document.body.insertAdjacentHTML(
        'beforeend',
        '<form id="fee-form"><label for="fee">Amount</label><input id="fee" name="amount" value="30"><button id="fee-button">Pay fee</button></form>',
      );
      document.querySelector('#fee-form')?.addEventListener('submit', (event) => {
        event.preventDefault();
        w.paid.push((document.querySelector('#fee') as HTMLInputElement).value);
      });
      const states = lib.defineStates({
        PayFee: {
          kind: 'action',
          critical: true,
          variables: [{ name: 'amount', type: 'Number' }],
        },
      });
      const web = lib.createWebGuard({
        guard: lib.createGuard(
          '@confirm(financial, "Confirm the fee")\nPayFee(amount <= 35) -> Paid\nPaid -> Done\n',
          states.schema,
          { finishWaitsForResults: false },
        ),
      });
      web.guardAction('#fee-form', {
        action: 'PayFee',
        args: ({ formData }: { formData: FormData }) => ({
          amount: Number(formData.get('amount')),
        }),
      });
    });
    await page.getByRole('button', { name: 'Pay fee' }).click();
    // Published as asked, then at once as denied: nobody in the page is asked.
    expect(await verdictNumber(page, 1)).toMatchObject({ action: 'PayFee', status: 'asking' });
    const verdict = await verdictNumber(page, 2);
    expect(verdict).toMatchObject({ action: 'PayFee', decision: 'confirm', status: 'denied' });
    expect(verdict.message).toContain('no way to ask');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await tryToApprove();
    // Pressing Pay fee again is a new call: denied again, never paid.
    await page.getByRole('button', { name: 'Pay fee' }).click();
    expect(await verdictNumber(page, 4)).toMatchObject({ status: 'denied' });
    await tryToApprove();
    expect(await page.evaluate(() => (window as unknown as { paid: string[] }).paid)).toEqual([]);
  });

  it('the fixture app: the payment is denied, not asked, and never runs', async () => {
    await setUpPage(page, { url: fixture.url, now, confirm: 'default' });
    await reachPayment(page);
    await page.click('#pay-button');
    expect(await verdictNumber(page, 4)).toMatchObject({ status: 'asking' });
    const verdict = await verdictNumber(page, 5);
    expect(verdict).toMatchObject({
      action: 'PayDeposit',
      decision: 'confirm',
      status: 'denied',
      codes: ['rule-confirm'],
    });
    // The agent learns why, and what the person would have been asked.
    expect(verdict.message).toContain("this action needs a person's approval");
    expect(verdict.prompt).toContain(
      'Pays the deposit with the stored card (PayDeposit) with amount: 20? Why:',
    );
    expect(await page.getByRole('dialog').count()).toBe(0);
    await tryToApprove();
    expect(await ran(page)).not.toContain('pay:20');
  });
});
