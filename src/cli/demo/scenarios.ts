/**
 * The demo's scripted agent runs. Each is self-contained — spec, schema and the
 * agent's steps — so `intentguard demo` needs no files, no network and no key.
 * They follow the worked examples of the design documents.
 */
export type DemoStep =
  | { readonly kind: 'propose'; readonly actor: string; readonly proposal: Record<string, unknown> }
  | {
      readonly kind: 'observe';
      readonly actor: string;
      readonly observation: Record<string, unknown>;
    }
  | { readonly kind: 'resolve'; readonly approved: boolean };

export interface DemoScenario {
  readonly title: string;
  readonly instruction: string;
  readonly schemaKind: 'states' | 'tools';
  readonly schema: unknown;
  readonly spec: string;
  readonly now: string;
  readonly steps: readonly DemoStep[];
}

const restaurantStates = {
  RestaurantInfo: {
    description: 'Information about the restaurant you want to reserve.',
    variables: [{ name: 'name', type: 'Text' }],
  },
  ReserveInfo: {
    description: 'Reservation details selected on the booking screen.',
    variables: [
      { name: 'date', type: 'Date' },
      { name: 'time', type: 'Time' },
      // The app reports availability and the outcome; the agent cannot claim them.
      { name: 'available', type: 'Boolean', observed: true },
    ],
  },
  ReserveResult: {
    description: 'The outcome shown after a reservation request.',
    observed: true,
    variables: [{ name: 'success', type: 'Boolean' }],
  },
};

const bankTools = {
  tools: [
    {
      name: 'BankCheckBalance',
      description: "Returns the balance of the user's checking account.",
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { balance: { type: 'number' } } },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'BankTransfer',
      description: "Transfers money from the user's checking account to a payee.",
      inputSchema: {
        type: 'object',
        properties: { to: { type: 'string' }, amount: { type: 'number' } },
        required: ['to', 'amount'],
      },
      annotations: { destructiveHint: true },
    },
    {
      name: 'BankPayBill',
      description: 'Pays a bill to a biller from the checking account.',
      inputSchema: {
        type: 'object',
        properties: { biller: { type: 'string' }, amount: { type: 'number' } },
      },
      annotations: { destructiveHint: true },
    },
  ],
};

export const demoScenarios: readonly DemoScenario[] = [
  {
    title: 'Restaurant reservation — a GUI agent in a booking app',
    instruction: 'Reserve restaurant R before 7 PM today. If it is not available then, do nothing.',
    schemaKind: 'states',
    schema: restaurantStates,
    now: '2025-03-14T12:00',
    spec: `R1: RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = true) -> Reserve
R2: Reserve & ReserveResult(success = true) -> Done
R3: RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = false) -> Done
`,
    steps: [
      {
        kind: 'propose',
        actor: 'agent searches for "R"',
        proposal: { updates: { RestaurantInfo: { name: 'R' } } },
      },
      {
        kind: 'propose',
        actor: 'agent picks 20:00',
        proposal: { updates: { ReserveInfo: { date: '2025-03-14', time: '20:00' } } },
      },
      {
        kind: 'propose',
        actor: 'agent picks 18:00 instead',
        proposal: { updates: { ReserveInfo: { date: '2025-03-14', time: '18:00' } } },
      },
      {
        kind: 'propose',
        actor: 'agent claims the slot is available and taps Reserve',
        proposal: { objective: 'Reserve', updates: { ReserveInfo: { available: true } } },
      },
      {
        kind: 'observe',
        actor: 'app shows the slot is available',
        observation: { updates: { ReserveInfo: { available: true } } },
      },
      { kind: 'propose', actor: 'agent says it is finished', proposal: { finish: true } },
      { kind: 'propose', actor: 'agent taps Reserve', proposal: { objective: 'Reserve' } },
      {
        kind: 'observe',
        actor: 'app confirms the booking',
        observation: { updates: { ReserveResult: { success: true } } },
      },
      { kind: 'propose', actor: 'agent says it is finished', proposal: { finish: true } },
    ],
  },
  {
    title: 'Bank transfer — a tool-using agent with MCP tools',
    instruction: 'Transfer $500 to Alice if my balance exceeds $1000.',
    schemaKind: 'tools',
    schema: bankTools,
    now: '2025-03-14T12:00',
    spec: `BankCheckBalance() -> BalanceKnown
@confirm(financial, "Confirm the transfer details with the user")
BalanceKnown & BankCheckBalanceResult(balance > 1000) & BankTransfer(to = "Alice", amount = 500) -> Transferred
Transferred -> Done
BalanceKnown & BankCheckBalanceResult(balance <= 1000) -> Done
reject BankTransfer(amount > 500) because "never move more than the user asked for"
`,
    steps: [
      {
        kind: 'propose',
        actor: 'agent transfers right away',
        proposal: { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } },
      },
      {
        kind: 'propose',
        actor: 'agent checks the balance',
        proposal: { action: { name: 'BankCheckBalance', args: {} } },
      },
      {
        kind: 'observe',
        actor: 'tool returns',
        observation: { updates: { BankCheckBalanceResult: { balance: 1500 } } },
      },
      {
        kind: 'propose',
        actor: 'agent, misled by an email, pays a "bill"',
        proposal: { action: { name: 'BankPayBill', args: { biller: 'Mallory Ltd', amount: 450 } } },
      },
      {
        kind: 'propose',
        actor: 'agent transfers $900',
        proposal: { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 900 } } },
      },
      {
        kind: 'propose',
        actor: 'agent transfers $500 to Alice',
        proposal: { action: { name: 'BankTransfer', args: { to: 'alice', amount: 500 } } },
      },
      { kind: 'resolve', approved: true },
      {
        kind: 'propose',
        actor: 'agent transfers again',
        proposal: { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } },
      },
      { kind: 'propose', actor: 'agent says it is finished', proposal: { finish: true } },
    ],
  },
];
