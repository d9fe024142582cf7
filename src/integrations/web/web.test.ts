// @vitest-environment happy-dom
/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { specText as inlinedSpec } from '../../../examples/web/spec.js';
import { restaurantStates } from '../../../examples/web/states.js';
import { createGuard } from '../../guard/index.js';
import { IntentguardDiagnosticsError } from '../../language/index.js';
import {
  type ConfirmRequest,
  confirmWithDialog,
  createWebGuard,
  defineStates,
  type PublishedState,
  type PublishedVerdict,
  verdictEventName,
  type WebGuard,
} from './index.js';

// The DOM environment gives modules a browser-like URL; the project root is the working directory.
const root = `${process.cwd()}/`;
const specText = readFileSync(`${root}examples/web/spec.intent`, 'utf8');
const today = '2026-11-23';

function pageGuard() {
  return createGuard(specText, restaurantStates.schema, {
    now: `${today}T12:00`,
    timeZone: 'UTC',
    finishWaitsForResults: false,
  });
}

const published = () => (window as unknown as { intentguard: PublishedState }).intentguard;

let web: WebGuard | undefined;
let ran: string[];
let listeners: AbortController;

beforeEach(() => {
  ran = [];
  listeners = new AbortController();
  document.body.innerHTML = `
    <main>
      <button id="open">Open R</button>
      <div id="reserve" role="button" tabindex="0">Reserve</div>
      <select id="time"><option value="">--</option><option value="18:00">18:00</option><option value="20:00">20:00</option></select>
      <form id="pay"><input id="amount" name="amount" value="20"><button id="submit-pay">Pay</button></form>
    </main>`;
  // The app's own handlers, on the elements and on the document (as frameworks delegate).
  document.querySelector('#open')?.addEventListener('click', () => ran.push('open'));
  document.querySelector('#reserve')?.addEventListener('click', () => ran.push('reserve-click'));
  document.querySelector('#reserve')?.addEventListener('keydown', () => ran.push('reserve-key'));
  document.addEventListener(
    'change',
    (event) => {
      if ((event.target as Element).id === 'time')
        ran.push(`time:${(event.target as HTMLSelectElement).value}`);
    },
    { signal: listeners.signal },
  );
  document.querySelector('#pay')?.addEventListener('submit', (event) => {
    event.preventDefault();
    ran.push(`pay:${(document.querySelector('#amount') as HTMLInputElement).value}`);
  });
});

afterEach(() => {
  web?.dispose();
  web = undefined;
  listeners.abort();
  document.body.innerHTML = '';
});

function click(selector: string) {
  (document.querySelector(selector) as HTMLElement).dispatchEvent(
    new MouseEvent('click', { bubbles: true, cancelable: true }),
  );
}

function choose(selector: string, value: string) {
  const select = document.querySelector(selector) as HTMLSelectElement;
  select.value = value;
  select.dispatchEvent(new Event('change', { bubbles: true }));
}

function setUp(confirm?: (request: ConfirmRequest) => Promise<boolean>) {
  const guard = pageGuard();
  web = createWebGuard({ guard, ...(confirm ? { confirm } : {}) });
  web.guardAction('#open', {
    action: 'OpenRestaurant',
    updates: { RestaurantInfo: { name: 'R' } },
  });
  web.guardAction('#time', {
    action: 'EditReservation',
    updates: ({ value }) => ({ ReserveInfo: { date: today, time: value, party: 2 } }),
  });
  web.guardAction('#reserve', { action: 'Reserve' });
  web.guardAction('#pay', {
    action: 'PayDeposit',
    args: ({ formData }) => ({ amount: Number(formData?.get('amount')) }),
  });
  return { guard, web };
}

describe('defineStates', () => {
  it('checks the declaration like a states file and writes it out as one', () => {
    const written = JSON.parse(readFileSync(`${root}examples/web/states.json`, 'utf8')) as unknown;
    expect(JSON.parse(JSON.stringify(restaurantStates))).toEqual(written);
    expect(restaurantStates.schema.predicates.get('ReserveInfo')?.variables.length).toBe(4);
    expect(Object.isFrozen(restaurantStates.json.ReserveInfo)).toBe(true);
    // The page inlines the spec file.
    expect(inlinedSpec).toBe(specText);
  });

  it('refuses a wrong declaration with located diagnostics', () => {
    let caught: unknown;
    try {
      defineStates({ Form: { variables: [{ name: 'when', type: 'Moment' }] } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(IntentguardDiagnosticsError);
    const diagnostics = (caught as IntentguardDiagnosticsError).diagnostics;
    expect(diagnostics[0]?.code).toBe('schema-unknown-type');
    expect(JSON.stringify(diagnostics[0])).toContain('$.Form.variables[0].type');
    expect(() => defineStates({ Pay: { kind: 'action', observed: true, variables: [] } })).toThrow(
      IntentguardDiagnosticsError,
    );
  });

  it('keeps a setting in the schema and in the written states file; refuses it on an action', () => {
    const states = defineStates({
      Call: { variables: [{ name: 'muted', type: 'Boolean', setting: true }] },
    });
    expect(states.schema.predicates.get('Call')?.variables[0]?.setting).toBe(true);
    expect(JSON.parse(JSON.stringify(states))).toEqual({
      Call: { variables: [{ name: 'muted', type: 'Boolean', setting: true }] },
    });
    expect(() =>
      defineStates({
        Mute: { kind: 'action', variables: [{ name: 'on', type: 'Boolean', setting: true }] },
      }),
    ).toThrow(IntentguardDiagnosticsError);
  });
});

describe('triggers with a guard in the page', () => {
  it('lets an allowed click through untouched and publishes the verdict', () => {
    setUp();
    const seen: PublishedVerdict[] = [];
    document.addEventListener(verdictEventName, (event) =>
      seen.push((event as CustomEvent<PublishedVerdict>).detail),
    );
    click('#open');
    expect(ran).toEqual(['open']);
    expect(seen.map((verdict) => [verdict.action, verdict.status, verdict.trigger])).toEqual([
      ['OpenRestaurant', 'allowed', 'click'],
    ]);
    expect(published().last?.id).toBe(seen[0]?.id);
  });

  it('blocks a wrong time before the app sees it, restores the field, and shows the soft deviation', () => {
    setUp();
    click('#open');
    choose('#time', '20:00');
    expect(ran).toEqual(['open']);
    expect((document.querySelector('#time') as HTMLSelectElement).value).toBe('');
    expect(published().last).toMatchObject({
      status: 'blocked',
      decision: 'revise',
      severity: 'soft',
    });
    expect(published().last?.codes).toContain('soft-deviation');
    expect(published().feedback).toContain('time earlier than 19:00');
    choose('#time', '18:00');
    expect(ran).toEqual(['open', 'time:18:00']);
    expect(published().last?.status).toBe('allowed');
  });

  it('blocks a press of Reserve before availability is observed; the app handler does not run for the key', async () => {
    const { guard } = setUp();
    click('#open');
    choose('#time', '18:00');
    const reserve = document.querySelector('#reserve') as HTMLElement;
    reserve.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }),
    );
    expect(ran).toEqual(['open', 'time:18:00']);
    expect(published().last).toMatchObject({
      action: 'Reserve',
      status: 'blocked',
      trigger: 'keyboard',
    });
    expect(published().last?.codes).toContain('unmet-conditions');
    // The app reports the fact; then the same key press goes through, once.
    expect((await web?.observe({ ReserveInfo: { available: true } }))?.ok).toBe(true);
    const before = guard.journalLength();
    reserve.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }),
    );
    expect(ran).toEqual(['open', 'time:18:00', 'reserve-key']);
    expect(guard.journalLength()).toBe(before + 1);
    // Other keys are not an activation and pass unchecked.
    reserve.dispatchEvent(new KeyboardEvent('keydown', { key: 'a', bubbles: true }));
    expect(guard.journalLength()).toBe(before + 1);
  });

  it('refuses a larger deposit with the spec reason, and the app never pays', async () => {
    const { guard } = setUp();
    click('#open');
    choose('#time', '18:00');
    await web?.observe({ ReserveInfo: { available: true } });
    click('#reserve');
    await web?.observe({ ReserveResult: { success: true, deposit: 20 } });
    (document.querySelector('#amount') as HTMLInputElement).value = '50';
    (document.querySelector('#pay') as HTMLFormElement).requestSubmit();
    expect(ran).toEqual(['open', 'time:18:00', 'reserve-click']);
    expect(published().last).toMatchObject({
      action: 'PayDeposit',
      status: 'blocked',
      decision: 'reject',
      args: { amount: 50 },
    });
    expect(published().last?.message).toContain('never pay more than the deposit');
    expect(guard.status().achieved).toEqual({ Reserved: 1 });
  });

  it('asks the person for the right deposit: approval replays the submit once, denial drops it', async () => {
    const asked: ConfirmRequest[] = [];
    let answer = false;
    const { guard } = setUp(async (request) => {
      asked.push(request);
      return answer;
    });
    click('#open');
    choose('#time', '18:00');
    await web?.observe({ ReserveInfo: { available: true } });
    click('#reserve');
    await web?.observe({ ReserveResult: { success: true, deposit: 20 } });
    const form = document.querySelector('#pay') as HTMLFormElement;
    form.requestSubmit();
    expect(published().last?.status).toBe('asking');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(asked[0]?.prompt).toContain('Confirm the deposit payment with the user');
    expect(published().last?.status).toBe('denied');
    expect(ran).not.toContain('pay:20');
    answer = true;
    form.requestSubmit();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(published().last?.status).toBe('approved');
    expect(ran.filter((entry) => entry === 'pay:20')).toHaveLength(1);
    expect(guard.status().achieved).toEqual({ Reserved: 1, Paid: 1 });
  });

  it('does not perform an approved action that changed while the person was asked, and rolls it back', async () => {
    const amount = () => document.querySelector('#amount') as HTMLInputElement;
    const { guard } = setUp(async () => {
      // Someone edits the form while the dialog is open.
      amount().value = '50';
      return true;
    });
    click('#open');
    choose('#time', '18:00');
    await web?.observe({ ReserveInfo: { available: true } });
    click('#reserve');
    await web?.observe({ ReserveResult: { success: true, deposit: 20 } });
    (document.querySelector('#pay') as HTMLFormElement).requestSubmit();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(ran.some((entry) => entry.startsWith('pay:'))).toBe(false);
    expect(published().last).toMatchObject({ status: 'blocked', failure: 'stale-decision' });
    expect(published().last?.message).toContain('{"amount":50} instead of {"amount":20}');
    // The guard no longer counts the payment.
    expect(guard.status().achieved).toEqual({ Reserved: 1 });
    await web?.observe({ PaymentResult: { success: true, amount: 50 } });
    expect((await web?.finish())?.status).toBe('blocked');
  });

  it('asks one question at a time; a second payment waits and is refused once the first is approved', async () => {
    let open = 0;
    let most = 0;
    const { guard } = setUp(async () => {
      open += 1;
      most = Math.max(most, open);
      await new Promise((resolve) => setTimeout(resolve, 5));
      open -= 1;
      return true;
    });
    click('#open');
    choose('#time', '18:00');
    await web?.observe({ ReserveInfo: { available: true } });
    click('#reserve');
    await web?.observe({ ReserveResult: { success: true, deposit: 20 } });
    const form = document.querySelector('#pay') as HTMLFormElement;
    form.requestSubmit();
    form.requestSubmit();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(most).toBe(1);
    expect(ran.filter((entry) => entry === 'pay:20')).toHaveLength(1);
    expect(guard.status().achieved).toEqual({ Reserved: 1, Paid: 1 });
  });

  it('refuses a premature finish with the roadmap, and allows it once the task is done', async () => {
    setUp();
    const early = await published().finish();
    expect(early).toMatchObject({ kind: 'finish', status: 'blocked' });
    expect(early.codes).toContain('premature-finish');
    expect(published().roadmap).toContain('Roadmap:');
    expect(published().roadmap).toContain('PayDeposit with amount equal to 20');
  });

  it("judges the agent's final answer: one that shows an action never taken is refused", async () => {
    setUp();
    const claimed = await published().finish(
      'All done.\nAction: PayDeposit\nAction Input: {"amount": 20}\nObservation: paid',
    );
    expect(claimed).toMatchObject({ kind: 'finish', status: 'blocked' });
    expect(claimed.codes).toContain('fabricated-action');
  });

  it('checks every synthetic event an agent dispatches, but not the replay it causes', async () => {
    const { guard } = setUp(async () => true);
    click('#open');
    click('#open');
    // The second open is checked again (and allowed: it repeats no objective).
    expect(guard.journalLength()).toBe(2);
    expect(ran).toEqual(['open', 'open']);
  });

  it('cannot be used to set an observed fact from a trigger', () => {
    const guard = pageGuard();
    web = createWebGuard({ guard });
    web.guardAction('#open', {
      action: 'OpenRestaurant',
      updates: { ReserveInfo: { available: true } },
    });
    click('#open');
    expect(ran).toEqual([]);
    expect(published().last?.codes).toEqual(['invalid-proposal']);
    expect(published().last?.message).toContain('observed');
  });

  it('fails closed when a trigger function throws or names an undeclared action', () => {
    const guard = pageGuard();
    web = createWebGuard({ guard });
    web.guardAction('#open', {
      action: 'OpenRestaurant',
      updates: () => {
        throw new Error('no restaurant selected');
      },
    });
    web.guardAction('#reserve', { action: 'Teleport' });
    click('#open');
    expect(published().last).toMatchObject({ status: 'blocked', failure: 'trigger-error' });
    expect(published().last?.message).toContain('no restaurant selected');
    click('#reserve');
    expect(published().last?.status).toBe('blocked');
    expect(published().last?.message).toContain("Unknown action 'Teleport'");
    expect(ran).toEqual([]);
  });

  it('a checkbox guarded on change is toggled back when blocked, and set when approved', async () => {
    const { guard } = setUp(async () => true);
    const box = document.createElement('input');
    box.type = 'checkbox';
    document.body.append(box);
    box.addEventListener('change', () => ran.push(`box:${box.checked}`));
    web?.guardAction(box, { action: 'PayDeposit', on: 'change', args: { amount: 20 } });
    box.checked = true;
    box.dispatchEvent(new Event('change', { bubbles: true }));
    expect(box.checked).toBe(false);
    expect(ran).toEqual([]);
    click('#open');
    choose('#time', '18:00');
    await web?.observe({ ReserveInfo: { available: true } });
    click('#reserve');
    await web?.observe({ ReserveResult: { success: true, deposit: 20 } });
    box.checked = true;
    box.dispatchEvent(new Event('change', { bubbles: true }));
    expect(box.checked).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(box.checked).toBe(true);
    expect(ran.filter((entry) => entry.startsWith('box:'))).toEqual(['box:true']);
    expect(guard.status().achieved).toEqual({ Reserved: 1, Paid: 1 });
  });

  it('a key is the action of the focused element only, not of a guarded container', () => {
    const guard = pageGuard();
    web = createWebGuard({ guard });
    web.guardAction('main', { action: 'Reserve' });
    const note = document.createElement('input');
    document.querySelector('main')?.append(note);
    note.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }),
    );
    expect(guard.journalLength()).toBe(0);
    // A click inside the container is its action (delegation).
    note.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
    expect(guard.journalLength()).toBe(1);
  });

  it('matches selectors at event time, for elements the app renders later', () => {
    setUp();
    const later = document.createElement('button');
    later.id = 'later';
    document.body.append(later);
    web?.guardAction('#later', { action: 'Reserve' });
    let handled = false;
    later.addEventListener('click', () => {
      handled = true;
    });
    later.click();
    expect(handled).toBe(false);
    expect(published().last?.action).toBe('Reserve');
  });

  it('after dispose, nothing is intercepted and window.intentguard has no guard to finish', async () => {
    const { guard } = setUp();
    web?.dispose();
    click('#reserve');
    expect(ran).toEqual(['reserve-click']);
    expect(guard.journalLength()).toBe(0);
    await expect(published().finish()).rejects.toThrow(/no guard is active/);
  });

  it('keeps window.intentguard read-only', () => {
    setUp();
    const win = window as unknown as Record<string, unknown>;
    expect(() => {
      win.intentguard = { last: { status: 'allowed' } };
    }).toThrow();
    expect(() => {
      (published() as unknown as Record<string, unknown>).feedback = 'all good';
    }).toThrow();
    click('#open');
    expect(() => {
      (published().last as unknown as Record<string, unknown>).status = 'blocked';
    }).toThrow();
  });

  it('needs exactly one of a guard or a remote service', () => {
    expect(() => createWebGuard({})).toThrow(/either `guard`/);
    expect(() =>
      createWebGuard({ remote: { url: 'http://127.0.0.1:1', token: 'x'.repeat(16) } }),
    ).toThrow(/needs `spec` and `states`/);
  });

  it('refuses a policy it could not apply, never ignores it', () => {
    const { guard } = setUp();
    web?.dispose();
    const policy = 'reject Reserve() because "closed"';
    expect(() => createWebGuard({ guard, policy })).toThrow(/`policy` goes with `remote`/);
    expect(() =>
      createWebGuard({
        remote: { url: 'http://127.0.0.1:1', token: 'x'.repeat(16), session: 's1' },
        policy,
      }),
    ).toThrow(/`policy` goes with `remote`/);
  });
});

describe('the confirmation dialog', () => {
  async function openDialog() {
    // The in-page dialog is an opt-in (W1): without `confirm`, nobody is asked.
    const { guard } = setUp((request) => confirmWithDialog(request));
    click('#open');
    choose('#time', '18:00');
    await web?.observe({ ReserveInfo: { available: true } });
    click('#reserve');
    await web?.observe({ ReserveResult: { success: true, deposit: 20 } });
    (document.querySelector('#pay') as HTMLFormElement).requestSubmit();
    // The dialog's code loads on demand: it opens once its module has arrived.
    for (let wait = 0; wait < 200 && !document.querySelector('[role="dialog"]'); wait++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const dialog = document.querySelector('[role="dialog"]') as HTMLElement;
    return { guard, dialog };
  }

  it('is modal, labelled, starts on Deny, traps Tab, and ignores a synthetic approve', async () => {
    const { dialog } = await openDialog();
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    const title = document.getElementById(dialog.getAttribute('aria-labelledby') ?? '');
    expect(title?.textContent).toBe('Allow this action?');
    expect(
      document.getElementById(dialog.getAttribute('aria-describedby') ?? '')?.textContent,
    ).toContain('Confirm the deposit payment');
    expect(document.activeElement?.textContent).toBe('Deny');
    expect(document.querySelector('main')?.hasAttribute('inert')).toBe(true);
    document.activeElement?.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, cancelable: true }),
    );
    expect(document.activeElement?.textContent).toBe('Approve');
    document.activeElement?.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Tab', bubbles: true, cancelable: true }),
    );
    expect(document.activeElement?.textContent).toBe('Deny');
    // An agent script's click is not a person's.
    (dialog.querySelector('.ig-approve') as HTMLElement).click();
    expect(document.querySelector('[role="dialog"]')).not.toBeNull();
    expect(ran).not.toContain('pay:20');
  });

  it('denies on Escape, restores the page and the focus', async () => {
    const { dialog } = await openDialog();
    dialog.dispatchEvent(
      new KeyboardEvent('keydown', { key: 'Escape', bubbles: true, cancelable: true }),
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(document.querySelector('[role="dialog"]')).toBeNull();
    expect(document.querySelector('main')?.hasAttribute('inert')).toBe(false);
    expect(published().last?.status).toBe('denied');
    expect(ran).not.toContain('pay:20');
  });
});
