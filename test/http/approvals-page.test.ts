import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { callService, killAll, projectRoot, startServer } from './server-process.js';

const token = 'page-token-0123456789abcdef';
const bankSpec = readFileSync(join(projectRoot, 'examples/bank-transfer/spec.intent'), 'utf8');
const bankTools = JSON.parse(
  readFileSync(join(projectRoot, 'examples/bank-transfer/tools.json'), 'utf8'),
) as unknown;

let dir: string;
let browser: Browser | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-page-'));
  browser = await launchChromium();
}, 60_000);
afterEach(killAll);
afterAll(async () => {
  await browser?.close();
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

async function api(url: string, method: string, path: string, body?: unknown) {
  return (await callService(url, token, method, path, body)).body;
}

describe('the approvals page in Chromium', () => {
  it('shows a pending confirm; a click approves it and the waiting client gets run', async () => {
    const server = await startServer(['--db', join(dir, 'page.db'), '--token', token]);
    const session = (
      await api(server.url, 'POST', '/v1/sessions', { spec: bankSpec, tools: bankTools })
    ).id as string;
    const check = (id: string, name: string, args: unknown) =>
      api(server.url, 'POST', `/v1/sessions/${session}/check`, { id, name, args });
    expect((await check('balance', 'BankCheckBalance', {})).action).toBe('run');
    await api(server.url, 'POST', `/v1/sessions/${session}/result`, {
      id: 'balance',
      output: { balance: 1500 },
    });
    expect((await check('pay', 'BankTransfer', { to: 'Alice', amount: 500 })).action).toBe('ask');

    const page = await (browser as Browser).newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${server.url}/#token=${token}`, { timeout: 15_000 });
    // The token left the address bar; the pending call shows with its rule's reason.
    expect(page.url()).toBe(`${server.url}/`);
    const approval = page.locator('.approval[data-id="pay"]');
    await approval.waitFor({ timeout: 10_000 });
    expect(await approval.locator('.question').textContent()).toContain(
      '(BankTransfer) with to: "Alice", amount: 500? Why: Confirm the transfer details with the user',
    );
    expect(await page.locator('.session tr[data-id="balance"] td.run').count()).toBe(1);

    // The waiting client polls its call while the person decides.
    const waiting = (async () => {
      for (let attempt = 0; attempt < 100; attempt++) {
        const decision = await check('pay', 'BankTransfer', { to: 'Alice', amount: 500 });
        if (decision.action !== 'ask') return decision.action;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return 'still waiting';
    })();
    await approval.getByRole('button', { name: 'Approve' }).click({ timeout: 5000 });
    expect(await waiting).toBe('run');
    await page.locator('.approval').first().waitFor({ state: 'detached', timeout: 10_000 });
    await page.locator('.session tr[data-id="pay"] td.run').waitFor({ timeout: 10_000 });
    expect(await page.locator('#approvals').textContent()).toContain(
      'Nothing waits for an answer.',
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('C1: shows the full arguments, those the confirming rule constrains first, and the question', async () => {
    const server = await startServer(['--db', join(dir, 'order.db'), '--token', token]);
    const session = (
      await api(server.url, 'POST', '/v1/sessions', { spec: bankSpec, tools: bankTools })
    ).id as string;
    const check = (id: string, name: string, args: unknown) =>
      api(server.url, 'POST', `/v1/sessions/${session}/check`, { id, name, args });
    await check('balance', 'BankCheckBalance', {});
    await api(server.url, 'POST', `/v1/sessions/${session}/result`, {
      id: 'balance',
      output: { balance: 1500 },
    });
    // The agent puts the amount first; the rule constrains `to`, then `amount`.
    expect((await check('pay', 'BankTransfer', { amount: 500, to: 'Alice' })).action).toBe('ask');
    const page = await (browser as Browser).newPage();
    await page.goto(`${server.url}/#token=${token}`, { timeout: 15_000 });
    const approval = page.locator('.approval[data-id="pay"]');
    await approval.waitFor({ timeout: 10_000 });
    // Every argument in full, one a line, the constrained ones first and marked.
    expect(await approval.locator('dl.args dt').allTextContents()).toEqual(['to', 'amount']);
    expect(await approval.locator('dl.args dt.constrained').allTextContents()).toEqual([
      'to',
      'amount',
    ]);
    expect(await approval.locator('dl.args dd').allTextContents()).toEqual(['"Alice"', '500']);
    // The question once, in the tool's own words; the reason is not repeated beside it.
    expect(await approval.locator('.question').textContent()).toBe(
      'Transfers money from the user\'s checking account to a payee (BankTransfer) with to: "Alice", amount: 500? Why: Confirm the transfer details with the user. (financial)',
    );
    expect((await approval.textContent())?.split('Confirm the transfer details').length).toBe(2);
    await page.close();
  }, 90_000);

  it('a click on deny refuses the call; a wrong token shows the error', async () => {
    const server = await startServer(['--db', join(dir, 'deny.db'), '--token', token]);
    const session = (
      await api(server.url, 'POST', '/v1/sessions', { spec: bankSpec, tools: bankTools })
    ).id as string;
    await api(server.url, 'POST', `/v1/sessions/${session}/check`, {
      id: 'b',
      name: 'BankCheckBalance',
      args: {},
    });
    await api(server.url, 'POST', `/v1/sessions/${session}/result`, {
      id: 'b',
      output: { balance: 2000 },
    });
    await api(server.url, 'POST', `/v1/sessions/${session}/check`, {
      id: 'p',
      name: 'BankTransfer',
      args: { to: 'Alice', amount: 500 },
    });
    const page = await (browser as Browser).newPage();
    await page.goto(`${server.url}/`, { timeout: 15_000 });
    await page.fill('#token', 'wrong-token-0123456789abcdef');
    await page.click('button[type="submit"]');
    await page.locator('#error', { hasText: 'bearer token' }).waitFor({ timeout: 10_000 });
    await page.fill('#token', token);
    await page.click('button[type="submit"]');
    await page
      .locator('.approval[data-id="p"]')
      .getByRole('button', { name: 'Deny' })
      .click({ timeout: 10_000 });
    await page.locator('.session tr[data-id="p"] td.refuse').waitFor({ timeout: 10_000 });
    const decision = await api(server.url, 'POST', `/v1/sessions/${session}/check`, {
      id: 'p',
      name: 'BankTransfer',
      args: { to: 'Alice', amount: 500 },
    });
    expect(decision.action).toBe('refuse');
    await page.close();
  }, 90_000);

  it('renders a pending approval in plain words and a refusal with its feedback laid out (screenshot)', async () => {
    const server = await startServer(['--db', join(dir, 'render.db'), '--token', token]);
    const session = (
      await api(server.url, 'POST', '/v1/sessions', { spec: bankSpec, tools: bankTools })
    ).id as string;
    const check = (id: string, name: string, args: unknown) =>
      api(server.url, 'POST', `/v1/sessions/${session}/check`, { id, name, args });
    expect((await check('too-much', 'BankTransfer', { to: 'Alice', amount: 900 })).action).toBe(
      'refuse',
    );
    expect((await check('early', 'BankTransfer', { to: 'Alice', amount: 500 })).action).toBe(
      'refuse',
    );
    await check('balance', 'BankCheckBalance', {});
    await api(server.url, 'POST', `/v1/sessions/${session}/result`, {
      id: 'balance',
      output: { balance: 1500 },
    });
    expect((await check('pay', 'BankTransfer', { amount: 500, to: 'Alice' })).action).toBe('ask');
    const page = await (browser as Browser).newPage({ viewport: { width: 1000, height: 900 } });
    await page.goto(`${server.url}/#token=${token}`, { timeout: 15_000 });
    const approval = page.locator('.approval[data-id="pay"]');
    await approval.waitFor({ timeout: 10_000 });
    expect(await approval.locator('.question').textContent()).toContain(
      'Transfers money from the user\'s checking account to a payee (BankTransfer) with to: "Alice", amount: 500? Why: Confirm the transfer details',
    );
    expect(await approval.locator('dl.args dt.constrained').allTextContents()).toEqual([
      'to',
      'amount',
    ]);
    // A refusal: the call by tool and arguments, the reason and who gave it, the feedback.
    const refused = page.locator('.session tr[data-id="too-much"]');
    await refused.waitFor({ timeout: 10_000 });
    expect(await refused.locator('.action').textContent()).toBe(
      'BankTransfer {"to":"Alice","amount":900}',
    );
    expect(await refused.locator('.feedback li').first().textContent()).toContain(
      'never move more than the user asked for',
    );
    expect(await refused.locator('.feedback h4').allTextContents()).toContain(
      'Feedback to the agent',
    );
    const early = page.locator('.session tr[data-id="early"]');
    expect(await early.locator('.feedback h4').allTextContents()).toContain('What to do instead');
    expect(await early.locator('.feedback').textContent()).toContain('BankCheckBalance');
    await page.screenshot({
      path: join(projectRoot, 'docs/images/service-approvals-page.png'),
      fullPage: true,
    });
    await page.close();
  }, 90_000);
});
