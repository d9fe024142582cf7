import { createSession } from '../src/engine/index.js';
import { createGuard } from '../src/guard/index.js';
import { checkSpec, type Spec } from '../src/language/index.js';
import { loadToolSchema } from '../src/schema/index.js';
import {
  collectGarbage,
  formatMicros,
  percentile,
  table,
  timeCall,
  timerOverhead,
} from './measure.js';

/**
 * The guard's overhead per checked call (issue #8: check + result p50 ≤ 5 µs beyond
 * the engine's decision): the same allowed tool call and its result, through a bare
 * session (`propose` + `observe`) and through a guard (`check` + `result`).
 */
const now = '2025-03-14T12:00';
const sessionLength = 1_000;

function bankSpec(): Spec {
  const tools = loadToolSchema({
    tools: [
      {
        name: 'BankCheckBalance',
        description: 'Returns the balance.',
        inputSchema: { type: 'object', properties: {} },
        outputSchema: { type: 'object', properties: { balance: { type: 'number' } } },
        annotations: { readOnlyHint: true },
      },
    ],
  });
  if (!tools.ok) throw new Error('bench guard: tools');
  const checked = checkSpec(
    '@repeat\nBankCheckBalance() -> Checked\nChecked & BankCheckBalanceResult(balance > 0) -> Done',
    tools.value,
  );
  if (!checked.ok) throw new Error(`bench guard: ${checked.diagnostics[0]?.message}`);
  return checked.value;
}

function measure(count: number, step: (index: number, fresh: boolean) => void): number {
  const overhead = timerOverhead();
  for (let index = 0; index < 50_000; index++) step(index, index % sessionLength === 0);
  collectGarbage();
  const samples: number[] = new Array(count);
  for (let index = 0; index < count; index++) {
    const fresh = index % sessionLength === 0;
    samples[index] = Math.max(0, timeCall(() => step(index, fresh)) - overhead);
  }
  samples.sort((a, b) => a - b);
  return percentile(samples, 0.5);
}

export function guardBench(count: number): void {
  const spec = bankSpec();
  const call = { action: { name: 'BankCheckBalance', args: {} } };
  const observation = { updates: { BankCheckBalanceResult: { balance: 100 } } };
  let session = createSession(spec, { now });
  const bare = measure(count, (_, fresh) => {
    if (fresh) session = createSession(spec, { now });
    session.propose(call);
    session.observe(observation);
  });
  let guard = createGuard(spec, spec.schema, { now });
  const guarded = measure(count, (index, fresh) => {
    if (fresh) guard = createGuard(spec, spec.schema, { now });
    const id = `call-${index}`;
    guard.check({ id, name: 'BankCheckBalance', args: {} });
    guard.result(id, { output: { balance: 100 } });
  });
  console.log(
    `\nGuard overhead per checked call (check + result vs propose + observe; ${count.toLocaleString('en-US')} calls, guards of ${sessionLength.toLocaleString('en-US')} calls; target ≤ 5 µs)`,
  );
  console.log(
    table(
      ['path', 'p50 µs'],
      [
        ['session propose + observe', formatMicros(bare)],
        ['guard check + result', formatMicros(guarded)],
        ['overhead', formatMicros(guarded - bare)],
      ],
    ),
  );
}
