/// <reference lib="dom" />
/**
 * The demo app: restaurant search → reservation form → deposit payment → confirmation.
 * Plain TypeScript over the DOM. Everything intentguard-specific is in `installGuard`:
 * the app's handlers below are written as if no guard existed, and the guard's capture
 * listeners run before them.
 */
import { loadCompiledGuard } from '../../src/guard/compiled-guard.js';
import {
  confirmWithDialog,
  createWebGuard,
  type PublishedVerdict,
  verdictEventName,
  type WebGuard,
} from '../../src/integrations/web/index.js';

interface Restaurant {
  readonly name: string;
  readonly cuisine: string;
  readonly deposit: number;
  /** Slots already taken. */
  readonly full: readonly string[];
}

const restaurants: readonly Restaurant[] = [
  { name: 'R', cuisine: 'Bistro', deposit: 20, full: ['17:00'] },
  { name: 'Rialto', cuisine: 'Italian', deposit: 30, full: [] },
  { name: 'Sushi Go', cuisine: 'Japanese', deposit: 15, full: ['18:00'] },
];
const times = ['17:00', '18:00', '18:30', '20:00'];

const params = new URLSearchParams(location.search);
const now = params.get('now') ?? undefined;
const timeZone = params.get('tz') ?? Intl.DateTimeFormat().resolvedOptions().timeZone;

function todayText(): string {
  if (now) return now.slice(0, 10);
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
  return parts;
}

/** The app's state: what its screens show. The guard never changes it; only handlers do. */
const state = {
  screen: 'search' as 'search' | 'form' | 'payment' | 'confirmed',
  query: '',
  restaurant: undefined as Restaurant | undefined,
  date: todayText(),
  time: '',
  party: '2',
  reservation: undefined as { id: string; deposit: number } | undefined,
  paid: 0,
};

const app = document.querySelector('#app') as HTMLElement;
let web: WebGuard;

/** Markup already built by `html` (inserted as is). */
class Markup {
  constructor(readonly text: string) {}
  toString() {
    return this.text;
  }
}

/** A template that escapes every value but nested markup: restaurant names and amounts never become HTML. */
function html(strings: TemplateStringsArray, ...values: (string | number | Markup)[]): Markup {
  const quote = (value: string | number | Markup) =>
    value instanceof Markup
      ? value.text
      : String(value).replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
  return new Markup(
    strings.reduce(
      (text, part, index) =>
        text + part + (index < values.length ? quote(values[index] as string) : ''),
      '',
    ),
  );
}

const join = (items: readonly Markup[]) => new Markup(items.map((item) => item.text).join(''));

function render() {
  switch (state.screen) {
    case 'search': {
      const found = state.query
        ? restaurants.filter((r) => r.name.toLowerCase().startsWith(state.query.toLowerCase()))
        : [];
      const results = found.length
        ? html`<ul class="results" aria-label="Results">${join(
            found.map(
              (r) =>
                html`<li><span><strong>${r.name}</strong> · ${r.cuisine}</span><button class="open-restaurant" data-name="${r.name}" aria-label="Open ${r.name}">Open</button></li>`,
            ),
          )}</ul>`
        : state.query
          ? html`<p class="note">No restaurant found.</p>`
          : html``;
      app.innerHTML = html`<h2>Find a restaurant</h2>
        <form id="search-form" role="search">
          <label for="query">Restaurant name</label>
          <input id="query" name="query" value="${state.query}" autocomplete="off">
          <button id="search" type="submit">Search</button>
        </form>${results}`.text;
      break;
    }
    case 'form': {
      const r = state.restaurant as Restaurant;
      app.innerHTML = html`<h2>Reserve at ${r.name}</h2>
        <form id="reserve-form">
          <label for="date">Date</label><input id="date" type="date" value="${state.date}">
          <label for="time">Time</label>
          <select id="time"><option value="">Choose a time</option>${join(times.map((t) => html`<option value="${t}">${t}</option>`))}</select>
          <label for="party">People</label>
          <select id="party">${join(['1', '2', '3', '4'].map((p) => (p === state.party ? html`<option value="${p}" selected>${p}</option>` : html`<option value="${p}">${p}</option>`)))}</select>
          <p id="availability" class="note">${state.time ? (r.full.includes(state.time) ? `${state.time} is fully booked.` : `${state.time} is available.`) : 'Choose a time to see availability.'}</p>
          <button id="reserve" type="button">Reserve</button>
        </form>`.text;
      (document.querySelector('#time') as HTMLSelectElement).value = state.time;
      break;
    }
    case 'payment': {
      const reservation = state.reservation as { id: string; deposit: number };
      app.innerHTML = html`<h2>Pay the deposit</h2>
        <p>Reservation <strong>${reservation.id}</strong> at ${state.restaurant?.name ?? ''}, ${state.date} ${state.time}, ${state.party} people.</p>
        <p class="note">The restaurant asks for a deposit of ${reservation.deposit} €.</p>
        <form id="pay-form">
          <label for="amount">Deposit (€)</label>
          <input id="amount" name="amount" type="text" inputmode="decimal" value="${reservation.deposit}">
          <button id="pay" type="submit">Pay deposit</button>
        </form>`.text;
      break;
    }
    case 'confirmed':
      app.innerHTML = html`<h2>Reservation confirmed</h2>
        <p class="ok">Table for ${state.party} at ${state.restaurant?.name ?? ''}, ${state.date} at ${state.time}.</p>
        <p>Deposit paid: ${state.paid} €. Reservation ${state.reservation?.id ?? ''}.</p>`.text;
      break;
  }
}

// ---- the app's handlers (delegated, as frameworks do) ----
document.addEventListener('submit', (event) => {
  const form = event.target as HTMLFormElement;
  event.preventDefault();
  if (form.id === 'search-form') {
    state.query = (form.querySelector('#query') as HTMLInputElement).value.trim();
    render();
  } else if (form.id === 'pay-form') {
    const amount = Number((form.querySelector('#amount') as HTMLInputElement).value);
    // The payment "server": it charges what it is told.
    state.paid = amount;
    void web.observe({ PaymentResult: { success: true, amount } });
    state.screen = 'confirmed';
    render();
  }
});

document.addEventListener('click', (event) => {
  const target = event.target as HTMLElement;
  const open = target.closest('.open-restaurant') as HTMLElement | null;
  if (open) {
    state.restaurant = restaurants.find((r) => r.name === open.dataset.name);
    state.time = '';
    state.screen = 'form';
    render();
  } else if (target.closest('#reserve')) {
    const r = state.restaurant as Restaurant;
    if (!state.time || r.full.includes(state.time)) return;
    state.reservation = {
      id: `RSV-${Math.floor(1000 + Math.random() * 9000)}`,
      deposit: r.deposit,
    };
    void web.observe({ ReserveResult: { success: true, deposit: r.deposit } });
    state.screen = 'payment';
    render();
  }
});

document.addEventListener('change', (event) => {
  const target = event.target as HTMLInputElement | HTMLSelectElement;
  if (target.id === 'time') {
    state.time = target.value;
    const available =
      state.restaurant !== undefined &&
      state.time !== '' &&
      !state.restaurant.full.includes(state.time);
    // The app's data code reports what it knows: the agent cannot claim availability.
    void web.observe({ ReserveInfo: { available } });
    render();
  } else if (target.id === 'party') {
    state.party = target.value;
  } else if (target.id === 'date') {
    state.date = target.value;
  }
});

// ---- intentguard: the pre-action triggers ----
function reservationUpdates(overrides: { time?: string; party?: string; date?: string }) {
  const time = overrides.time ?? state.time;
  return {
    ReserveInfo: {
      date: overrides.date ?? state.date,
      ...(time ? { time } : {}),
      party: Number(overrides.party ?? state.party),
    },
  };
}

/**
 * Who is asked to approve the deposit: the in-page dialog, which the demo opts into
 * because its "person" is played by the same script as the agent. The dialog is no
 * barrier to an agent that drives the page (Playwright, CDP, an extension): with such an
 * agent and a real person, use `confirm: 'service'` (docs/web.md).
 */
const confirm = confirmWithDialog;

async function installGuard(): Promise<WebGuard> {
  const remote = params.get('remote');
  let guard: WebGuard;
  if (remote) {
    // The service checks the spec text itself; the page loads it only in this mode.
    const [{ specText }, { restaurantStates }] = await Promise.all([
      import('./spec.js'),
      import('./states.js'),
    ]);
    guard = createWebGuard({
      remote: {
        url: remote,
        token: params.get('token') ?? '',
        timeoutMs: Number(params.get('timeout') ?? 5000),
      },
      spec: specText,
      states: restaurantStates,
      ...(now ? { now } : {}),
      timeZone,
      confirm,
    });
  } else {
    // The spec compiled on the server (`intentguard compile`), shipped as data: the page
    // carries no parser or checker, and loads the regex engine and the confusables table
    // only if the spec needs them.
    const response = await fetch('spec.compiled.json');
    if (!response.ok) throw new Error(`the compiled spec could not be loaded (${response.status})`);
    guard = createWebGuard({
      guard: await loadCompiledGuard(await response.json(), {
        ...(now ? { now } : {}),
        timeZone,
        finishWaitsForResults: false,
      }),
      confirm,
    });
  }
  guard.guardAction('.open-restaurant', {
    action: 'OpenRestaurant',
    label: 'Open a restaurant',
    updates: ({ element }) => ({ RestaurantInfo: { name: (element as HTMLElement).dataset.name } }),
  });
  guard.guardAction('#time', {
    action: 'EditReservation',
    label: 'Choose a time',
    updates: ({ value }) => reservationUpdates({ time: value ?? '' }),
  });
  guard.guardAction('#party', {
    action: 'EditReservation',
    label: 'Choose the party size',
    updates: ({ value }) => reservationUpdates({ party: value ?? '' }),
  });
  guard.guardAction('#date', {
    action: 'EditReservation',
    label: 'Choose a date',
    updates: ({ value }) => reservationUpdates({ date: value ?? '' }),
  });
  guard.guardAction('#reserve', { action: 'Reserve', label: 'Reserve' });
  guard.guardAction('#pay-form', {
    action: 'PayDeposit',
    label: 'Pay the deposit',
    args: ({ formData }) => ({ amount: Number(formData?.get('amount')) }),
  });
  return guard;
}

// The demo shows every verdict under the app, as the agent reads it.
const panel = document.querySelector('#guard-panel') as HTMLElement;
document.addEventListener(verdictEventName, (event) => {
  const verdict = (event as CustomEvent<PublishedVerdict>).detail;
  const title = `${verdict.label ?? verdict.action}: ${verdict.status} (${verdict.decision}${verdict.severity ? `, ${verdict.severity}` : ''})`;
  panel.innerHTML =
    html`<div class="verdict ${verdict.status}" data-status="${verdict.status}"><strong>${title}</strong>${verdict.message}</div>`.text;
});

// The app renders once its guard is ready: before that there is nothing to act on. A
// guard that cannot be set up leaves the app unusable rather than unguarded.
try {
  web = await installGuard();
  render();
} catch (error) {
  app.textContent = `The guard could not start: ${error instanceof Error ? error.message : String(error)}`;
}
