import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specText } from '../../examples/web/spec.js';
import { restaurantStates } from '../../examples/web/states.js';
import { checkPolicy, checkSpec, unwrap, writeCompiledSpec } from '../../src/index.js';
import { killAll, type ServerProcess, startServer } from '../http/server-process.js';
import { ran, reachPayment, setUpPage, verdictNumber } from './page-setup.js';
import { type FixtureServer, launchBrowser, startFixtureServer } from './support.js';

/**
 * The web guard with the operator's policy (LANGUAGE.md §8), in Chromium: the spec would
 * ask the person for the deposit of 20; the policy caps deposits at 15 and refuses it.
 */
const now = '2026-11-23T12:00';
const token = 'web-policy-token-0123456789';
const policy = 'reject PayDeposit(amount > 15) because "the operator caps deposits at 15"\n';
let browser: Browser;
let fixture: FixtureServer;
let service: ServerProcess;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-web-policy-'));
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

async function openPage(setup: {
  remote?: { url: string; token: string };
  policy?: string;
  compiled?: unknown;
}): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await setUpPage(page, { url: fixture.url, now, ...setup });
  return { page, errors };
}

async function payTwenty(page: Page) {
  await reachPayment(page);
  await page.fill('#amount', '20');
  await page.click('#pay-button');
  return verdictNumber(page, 4);
}

describe('the web guard with a policy, in Chromium', () => {
  for (const where of ['remote', 'in the page'] as const) {
    it(`${where}: the policy refuses the payment the spec would ask for, with its reason`, async () => {
      const { page, errors } = await openPage({
        policy,
        ...(where === 'remote' ? { remote: { url: service.url, token } } : {}),
      });
      const paid = await payTwenty(page);
      expect(paid).toMatchObject({
        status: 'blocked',
        decision: 'reject',
        codes: ['guard-reject'],
      });
      expect(paid.message).toContain('the operator caps deposits at 15');
      // No dialog was opened: nothing asked the person for what the policy refuses.
      expect(await page.getByRole('dialog').count()).toBe(0);
      expect((await ran(page)).filter((entry) => entry.startsWith('pay:'))).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    });
  }

  it('a compiled page: the document composes the policy, and loadComposedGuard enforces it', async () => {
    const schema = restaurantStates.schema;
    const compiled = writeCompiledSpec(
      unwrap(checkSpec(specText, schema)),
      unwrap(checkPolicy(policy, schema)),
    );
    const { page, errors } = await openPage({ compiled });
    const paid = await payTwenty(page);
    expect(paid).toMatchObject({ status: 'blocked', decision: 'reject', codes: ['guard-reject'] });
    expect(paid.message).toContain('the operator caps deposits at 15');
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect((await ran(page)).filter((entry) => entry.startsWith('pay:'))).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a compiled page: a tampered policy part is refused before any guard exists', async () => {
    const schema = restaurantStates.schema;
    const compiled = JSON.parse(
      JSON.stringify(
        writeCompiledSpec(unwrap(checkSpec(specText, schema)), unwrap(checkPolicy(policy, schema))),
      ),
    );
    // A number where the policy compares an amount: would make the guard never fire.
    compiled.policy.guards[0].pattern.constraints[0].value = { kind: 'text', value: '15' };
    const page = await browser.newPage();
    await page.goto(`${fixture.url}/`, { timeout: 15_000 });
    await page.waitForFunction(() => 'lib' in window, undefined, { timeout: 10_000 });
    const refused = await page.evaluate(async (document) => {
      // biome-ignore lint/suspicious/noExplicitAny: the page's globals
      const lib = (window as any).lib;
      try {
        await lib.loadComposedGuard(document, { finishWaitsForResults: false });
        return 'loaded';
      } catch (error) {
        return (error as Error).message;
      }
    }, compiled);
    expect(refused).toContain('$.policy.guards[0].pattern.constraints[0].value');
    await page.close();
  });

  it('without the policy the same payment is asked for (the policy is what refuses)', async () => {
    const { page } = await openPage({ remote: { url: service.url, token } });
    await reachPayment(page);
    await page.fill('#amount', '20');
    await page.click('#pay-button');
    await page.getByRole('dialog').waitFor({ timeout: 5000 });
    await page.close();
  });

  it('remote: a policy the service does not accept blocks every action (fail closed)', async () => {
    const { page } = await openPage({
      remote: { url: service.url, token },
      policy: 'reject Teleport(to = "moon") because "no"\n',
    });
    await page.click('#open');
    const blocked = await verdictNumber(page, 1);
    expect(blocked).toMatchObject({ status: 'blocked', failure: 'guard-error' });
    expect(blocked.message).toContain('invalid-policy');
    expect(await ran(page)).toEqual([]);
    await page.close();
  });
});
