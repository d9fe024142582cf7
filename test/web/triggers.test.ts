import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { observe, ran, reachPayment, setUpPage, verdictNumber, verdicts } from './page-setup.js';
import { type FixtureServer, launchBrowser, startFixtureServer } from './support.js';

/** Pre-action triggers in real Chromium, with the guard in the page. */

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
  await setUpPage(page, { url: fixture.url, now });
});
afterEach(async () => {
  expect(errors).toEqual([]);
  await page.close();
});

describe('triggers in Chromium', () => {
  it('click: a blocked click never reaches the app; an allowed one does, once', async () => {
    await page.click('#reserve');
    expect(await ran(page)).toEqual([]);
    expect(await verdictNumber(page, 1)).toMatchObject({
      action: 'Reserve',
      status: 'blocked',
      trigger: 'click',
    });
    await page.click('#open');
    expect(await ran(page)).toEqual(['open']);
    expect(await verdictNumber(page, 2)).toMatchObject({
      action: 'OpenRestaurant',
      status: 'allowed',
    });
  });

  it('keyboard: Enter and Space activate once when allowed, and not at all when blocked', async () => {
    await page.focus('#open');
    await page.keyboard.press('Enter');
    await page.keyboard.press(' ');
    expect(await ran(page)).toEqual(['open', 'open']);
    // One check per key press: the click the browser makes of it is the same action.
    expect((await verdicts(page)).map((verdict) => verdict.trigger)).toEqual([
      'keyboard',
      'keyboard',
    ]);
    await page.focus('#reserve');
    await page.keyboard.press('Enter');
    await page.keyboard.press(' ');
    expect(await ran(page)).toEqual(['open', 'open']);
    expect(
      (await verdicts(page)).slice(2).map((verdict) => [verdict.action, verdict.status]),
    ).toEqual([
      ['Reserve', 'blocked'],
      ['Reserve', 'blocked'],
    ]);
  });

  it('change: a blocked choice is undone before the app sees it; an allowed one reaches it', async () => {
    await page.selectOption('#time', '20:00');
    expect(await page.inputValue('#time')).toBe('');
    expect(await ran(page)).toEqual([]);
    const blocked = await verdictNumber(page, 1);
    expect(blocked).toMatchObject({
      status: 'blocked',
      severity: 'soft',
      codes: ['soft-deviation'],
    });
    await page.selectOption('#time', '18:00');
    expect(await ran(page)).toEqual(['time:18:00']);
    expect(await page.inputValue('#time')).toBe('18:00');
  });

  it('input: every keystroke is checked, and a blocked one is undone', async () => {
    await page.focus('#note');
    await page.keyboard.type('R');
    expect(await ran(page)).toEqual(['note:R']);
    await page.keyboard.type('x');
    expect(await page.inputValue('#note')).toBe('R');
    expect(await ran(page)).toEqual(['note:R']);
    expect(await verdictNumber(page, 2)).toMatchObject({
      status: 'blocked',
      trigger: 'input',
      updates: { RestaurantInfo: { name: 'Rx' } },
    });
  });

  it('submit: the button and Enter in a field are both checked; blocked, the app never submits', async () => {
    await page.click('#pay-button');
    await page.focus('#amount');
    await page.keyboard.press('Enter');
    expect(await ran(page)).toEqual([]);
    const all = await verdicts(page);
    expect(all.map((verdict) => [verdict.action, verdict.trigger, verdict.status])).toEqual([
      ['PayDeposit', 'submit', 'blocked'],
      ['PayDeposit', 'submit', 'blocked'],
    ]);
    expect(all[0]?.codes).toContain('unmet-conditions');
  });

  it("synthetic events from an agent script are checked like a person's", async () => {
    await page.evaluate(() => {
      const reserve = document.querySelector('#reserve') as HTMLElement;
      reserve.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
      reserve.click();
      reserve.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }),
      );
      (document.querySelector('#pay') as HTMLFormElement).requestSubmit();
    });
    expect(await ran(page)).toEqual([]);
    expect((await verdicts(page)).map((verdict) => verdict.status)).toEqual([
      'blocked',
      'blocked',
      'blocked',
      'blocked',
    ]);
  });

  it('publishes every verdict as a DOM event the agent can listen to', async () => {
    await page.evaluate(() => {
      const seen: unknown[] = [];
      (window as unknown as { seen: unknown[] }).seen = seen;
      document.addEventListener('intentguard:verdict', (event) =>
        seen.push((event as CustomEvent).detail),
      );
    });
    await page.click('#reserve');
    const seen = await page.evaluate(
      () =>
        (window as unknown as { seen: { action: string; status: string; roadmap: string }[] }).seen,
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ action: 'Reserve', status: 'blocked' });
    expect(seen[0]?.roadmap).toContain('Roadmap:');
    const finish = await page.evaluate(() =>
      (
        window as unknown as {
          intentguard: { finish(): Promise<{ status: string; codes: string[] }> };
        }
      ).intentguard.finish(),
    );
    expect(finish.status).toBe('blocked');
    expect(finish.codes).toContain('premature-finish');
  });
});

describe('the confirmation dialog in Chromium', () => {
  beforeEach(async () => {
    await reachPayment(page);
    await page.click('#pay-button');
    await page.getByRole('dialog').waitFor({ timeout: 5000 });
  });

  it('approve with the mouse: the payment runs once, after the approval', async () => {
    expect(await ran(page)).toEqual(['open', 'time:18:00', 'reserve-click']);
    expect((await verdicts(page)).at(-1)).toMatchObject({ status: 'asking', decision: 'confirm' });
    expect(await page.getByRole('dialog').textContent()).toContain(
      'Confirm the deposit payment with the user',
    );
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached', timeout: 5000 });
    expect(await verdictNumber(page, 5)).toMatchObject({
      status: 'approved',
      action: 'PayDeposit',
    });
    expect(await ran(page)).toEqual(['open', 'time:18:00', 'reserve-click', 'pay:20']);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('pay-button');
  });

  it('deny with the mouse: the payment never runs', async () => {
    await page.getByRole('button', { name: 'Deny' }).click();
    expect(await verdictNumber(page, 5)).toMatchObject({ status: 'denied' });
    expect(await ran(page)).not.toContain('pay:20');
  });

  it('keyboard only: focus starts on Deny, Tab is trapped, Enter on Approve approves', async () => {
    const focused = () => page.evaluate(() => document.activeElement?.textContent);
    expect(await focused()).toBe('Deny');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Approve');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Deny');
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Approve');
    await page.keyboard.press('Enter');
    expect(await verdictNumber(page, 5)).toMatchObject({ status: 'approved' });
    expect((await ran(page)).filter((entry) => entry === 'pay:20')).toHaveLength(1);
  });

  it('Escape denies; the page behind is inert while the dialog is open', async () => {
    expect(await page.evaluate(() => document.querySelector('main')?.hasAttribute('inert'))).toBe(
      true,
    );
    await page.keyboard.press('Escape');
    expect(await verdictNumber(page, 5)).toMatchObject({ status: 'denied' });
    expect(await page.evaluate(() => document.querySelector('main')?.hasAttribute('inert'))).toBe(
      false,
    );
    expect(await ran(page)).not.toContain('pay:20');
  });

  it('a script cannot approve for the person', async () => {
    await page.evaluate(() =>
      (document.querySelector('[role="dialog"] .ig-approve') as HTMLElement).click(),
    );
    await page.evaluate(() =>
      document
        .querySelector('[role="dialog"] .ig-approve')
        ?.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true })),
    );
    expect(await page.getByRole('dialog').count()).toBe(1);
    expect(await ran(page)).not.toContain('pay:20');
    await page.keyboard.press('Escape');
    expect(await verdictNumber(page, 5)).toMatchObject({ status: 'denied' });
  });

  it('a larger deposit is refused by the guard without asking', async () => {
    await page.keyboard.press('Escape');
    await verdictNumber(page, 5);
    await page.fill('#amount', '50');
    await page.click('#pay-button');
    const refused = await verdictNumber(page, 6);
    expect(refused).toMatchObject({
      status: 'blocked',
      decision: 'reject',
      codes: ['guard-reject'],
    });
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await ran(page)).not.toContain('pay:50');
    expect((await observe(page, { PaymentResult: { success: true } })).ok).toBe(true);
  });
});
