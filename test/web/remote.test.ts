import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAll, type ServerProcess, startServer } from '../http/server-process.js';
import { observe, ran, reachPayment, setUpPage, verdictNumber, verdicts } from './page-setup.js';
import {
  type FixtureServer,
  launchBrowser,
  startFixtureServer,
  startSilentServer,
  startSwitchableProxy,
} from './support.js';

/**
 * The web layer with the guard behind the HTTP service (`intentguard serve`, a real
 * process): decisions arrive asynchronously, so every guarded event is held and replayed
 * once allowed; when the service cannot answer, the action is blocked (fail closed).
 */

const now = '2026-11-23T12:00';
const token = 'web-remote-token-0123456789';
let browser: Browser;
let fixture: FixtureServer;
let service: ServerProcess;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-web-'));
  fixture = await startFixtureServer();
  [browser, service] = await Promise.all([
    launchBrowser(),
    startServer(['--db', join(dir, 'web.db'), '--token', token, '--cors', fixture.url]),
  ]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await fixture?.close();
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

async function openPage(remote: {
  url: string;
  token: string;
  timeoutMs?: number;
}): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await setUpPage(page, { url: fixture.url, now, remote });
  return { page, errors };
}

describe('remote guard through the HTTP service, in Chromium', () => {
  it('holds each event until the service decides, then replays it once or drops it', async () => {
    const { page, errors } = await openPage({ url: service.url, token });
    await page.click('#reserve');
    await page.selectOption('#time', '20:00');
    expect((await verdicts(page)).map((verdict) => verdict.status)).toEqual(['blocked', 'blocked']);
    expect(await page.inputValue('#time')).toBe('');
    await page.click('#open');
    await page.focus('#open');
    await page.keyboard.press('Enter');
    expect(await verdictNumber(page, 4)).toMatchObject({ status: 'allowed' });
    await page.keyboard.press(' ');
    expect(await verdictNumber(page, 5)).toMatchObject({ status: 'allowed', trigger: 'keyboard' });
    // Each key press ran the app's handler once: the replay is not checked again, and the
    // browser's own click of the held key press does not slip through.
    expect(await ran(page)).toEqual(['open', 'open', 'open']);
    expect(await verdicts(page)).toHaveLength(5);
    await page.selectOption('#time', '18:00');
    await verdictNumber(page, 6);
    expect(await ran(page)).toEqual(['open', 'open', 'open', 'time:18:00']);
    expect(await page.inputValue('#time')).toBe('18:00');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('asks in the dialog and tells the service; the payment runs once after approval', async () => {
    const { page, errors } = await openPage({ url: service.url, token });
    await reachPayment(page);
    await page.fill('#amount', '50');
    await page.click('#pay-button');
    expect(await verdictNumber(page, 4)).toMatchObject({
      status: 'blocked',
      codes: ['guard-reject'],
    });
    await page.fill('#amount', '20');
    await page.click('#pay-button');
    await page.getByRole('dialog').waitFor({ timeout: 5000 });
    await page.getByRole('button', { name: 'Approve' }).click();
    expect(await verdictNumber(page, 6)).toMatchObject({ status: 'approved' });
    expect((await ran(page)).filter((entry) => entry.startsWith('pay:'))).toEqual(['pay:20']);
    const finish = await page.evaluate(() =>
      (
        window as unknown as {
          intentguard: { finish(): Promise<{ status: string; codes: string[] }> };
        }
      ).intentguard.finish(),
    );
    // The payment's result is not observed yet: not done.
    expect(finish.codes).toContain('premature-finish');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('blocks when the service is unreachable', async () => {
    const { page } = await openPage({ url: 'http://127.0.0.1:9', token });
    await page.click('#open');
    expect(await verdictNumber(page, 1)).toMatchObject({
      status: 'blocked',
      failure: 'guard-unreachable',
      decision: 'reject',
    });
    expect(await ran(page)).toEqual([]);
    await page.close();
  });

  it('blocks when the service does not answer in time', async () => {
    const silent = await startSilentServer();
    try {
      const { page } = await openPage({ url: silent.url, token, timeoutMs: 400 });
      await page.click('#open');
      expect(await verdictNumber(page, 1)).toMatchObject({
        status: 'blocked',
        failure: 'guard-timeout',
      });
      expect(await ran(page)).toEqual([]);
      await page.close();
    } finally {
      await silent.close();
    }
  });

  it('blocks when the service refuses the request (a wrong token)', async () => {
    const { page } = await openPage({ url: service.url, token: 'not-the-token-0123456789' });
    await page.click('#open');
    const verdict = await verdictNumber(page, 1);
    expect(verdict).toMatchObject({ status: 'blocked', failure: 'guard-error' });
    expect(verdict.message).toContain('401');
    expect(await ran(page)).toEqual([]);
    await page.close();
  });

  it('blocks once the service goes away in the middle of a session', async () => {
    const proxy = await startSwitchableProxy(service.url);
    try {
      const { page } = await openPage({ url: proxy.url, token });
      await page.click('#open');
      expect(await verdictNumber(page, 1)).toMatchObject({ status: 'allowed' });
      proxy.setDown(true);
      await page.click('#open');
      expect(await verdictNumber(page, 2)).toMatchObject({
        status: 'blocked',
        failure: 'guard-unreachable',
      });
      expect(await ran(page)).toEqual(['open']);
      await page.close();
    } finally {
      await proxy.close();
    }
  });

  it('an observation the service did not get blocks the next check until it is delivered', async () => {
    const proxy = await startSwitchableProxy(service.url);
    try {
      const { page, errors } = await openPage({ url: proxy.url, token });
      await page.click('#open');
      await page.selectOption('#time', '18:00');
      expect((await verdicts(page)).map((verdict) => verdict.status)).toEqual([
        'allowed',
        'allowed',
      ]);
      proxy.setDown(true);
      const lost = await observe(page, { ReserveInfo: { available: true } });
      expect(lost).toMatchObject({ ok: false, failure: 'guard-unreachable' });
      proxy.setDown(false);
      // Delivered first, then the check: Reserve is allowed because availability arrived.
      await page.click('#reserve');
      expect(await verdictNumber(page, 3)).toMatchObject({ action: 'Reserve', status: 'allowed' });
      expect(await ran(page)).toEqual(['open', 'time:18:00', 'reserve-click']);
      proxy.setDown(true);
      await observe(page, { ReserveResult: { success: true, deposit: 20 } });
      await page.click('#pay-button');
      expect(await verdictNumber(page, 4)).toMatchObject({
        status: 'blocked',
        failure: 'guard-unreachable',
      });
      expect(await page.getByRole('dialog').count()).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await proxy.close();
    }
  });

  it('an action edited while the service decided is not performed, and the service rolls it back', async () => {
    const proxy = await startSwitchableProxy(service.url);
    try {
      const { page, errors } = await openPage({ url: proxy.url, token });
      await reachPayment(page);
      proxy.setDelay(700);
      await page.click('#pay-button');
      // While the check is on its way, the agent changes the amount in the form.
      await page.fill('#amount', '50');
      await page.getByRole('dialog').waitFor({ timeout: 5000 });
      proxy.setDelay(0);
      await page.getByRole('button', { name: 'Approve' }).click();
      const verdict = await verdictNumber(page, 5);
      expect(verdict).toMatchObject({ status: 'blocked', failure: 'stale-decision' });
      expect(await ran(page)).not.toContain('pay:50');
      expect(await ran(page)).not.toContain('pay:20');
      await observe(page, { PaymentResult: { success: true, amount: 50 } });
      const finish = await page.evaluate(() =>
        (
          window as unknown as { intentguard: { finish(): Promise<{ codes: string[] }> } }
        ).intentguard.finish(),
      );
      expect(finish.codes).toContain('premature-finish');
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await proxy.close();
    }
  });

  it("confirm: 'service' waits for the person's answer on the approvals page, not in the page", async () => {
    const page = await browser.newPage();
    await setUpPage(page, {
      url: fixture.url,
      now,
      remote: { url: service.url, token },
      confirm: 'service',
    });
    await reachPayment(page);
    await page.click('#pay-button');
    expect(await verdictNumber(page, 4)).toMatchObject({ status: 'asking' });
    // No dialog in the page: an agent at the mouse has nothing to press.
    expect(await page.getByRole('dialog').count()).toBe(0);
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const { approvals } = (await (
      await fetch(`${service.url}/v1/approvals`, { headers })
    ).json()) as {
      approvals: { session: string; id: string; call: { name: string; args: unknown } }[];
    };
    const waiting = approvals.find((approval) => approval.call.name === 'PayDeposit');
    expect(waiting?.call.args).toEqual({ amount: 20 });
    expect(await ran(page)).not.toContain('pay:20');
    // The person approves on the approvals page (its Approve button posts this).
    await fetch(`${service.url}/v1/sessions/${waiting?.session}/approve`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ id: waiting?.id, approved: true }),
    });
    expect(await verdictNumber(page, 5)).toMatchObject({ status: 'approved' });
    expect((await ran(page)).filter((entry) => entry === 'pay:20')).toHaveLength(1);
    await page.close();
  });

  it("confirm: 'service' drops the action when nobody answers in time", async () => {
    const page = await browser.newPage();
    await setUpPage(page, {
      url: fixture.url,
      now,
      remote: { url: service.url, token },
      confirm: 'service',
      approvalTimeoutMs: 600,
    });
    await reachPayment(page);
    await page.click('#pay-button');
    expect(await verdictNumber(page, 5)).toMatchObject({
      status: 'blocked',
      failure: 'guard-timeout',
    });
    expect(await ran(page)).not.toContain('pay:20');
    // Withdrawn on the service too: nothing is left for someone to approve later.
    const { approvals } = (await (
      await fetch(`${service.url}/v1/approvals`, { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as { approvals: unknown[] };
    expect(approvals).toEqual([]);
    await page.close();
  });
});
