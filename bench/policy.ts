import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkPolicy,
  checkSpec,
  createSession,
  loadStateSchema,
  loadToolSchema,
  type Spec,
  unwrap,
} from '../src/index.js';
import { mergeSchemas } from '../src/schema/index.js';
import { formatMicros, measureDecisions, table } from './measure.js';

/**
 * What a policy costs (LANGUAGE.md §8): a check by the intent and the policy together
 * against the intent alone, on the airline example (examples/policy), for a call both
 * permit and a call both refuse. Target: the composed p50 at most twice the intent's.
 */
export function policyBench(proposals: number): void {
  const example = (name: string) =>
    // `npm run bench` runs from the project's root (the compiled bench lives in dist-bench/).
    readFileSync(join(process.cwd(), 'examples', 'policy', name), 'utf8');
  const schema = unwrap(
    mergeSchemas(
      unwrap(loadToolSchema(example('tools.json'), { id: 'airline' })),
      unwrap(loadStateSchema(example('states.json'), { id: 'host' })),
    ),
  );
  const intent = unwrap(checkSpec(example('cancel.intent'), schema));
  const policy = unwrap(checkPolicy(example('airline.policy'), schema));
  // The floor: the policy's permissions judged alone, as an intent of their own (plus a
  // Done rule) — what a composed check adds at the least, whatever the composition costs.
  const policyAlone = unwrap(checkSpec(`${example('airline.policy')}\ntrue -> Done\n`, schema));
  const session =
    (withPolicy: Spec | undefined, spec: Spec = intent) =>
    () => {
      const created = createSession(spec, {
        now: '2024-05-15T15:00',
        ...(withPolicy ? { policy: withPolicy } : {}),
      });
      created.observe({ updates: { SessionUser: { user_id: 'mia' } } });
      created.propose({
        action: { name: 'get_reservation_details', args: { reservation_id: 'ABC123' } },
      });
      created.observe({
        updates: {
          get_reservation_detailsResult: {
            reservation_id: 'ABC123',
            user_id: 'mia',
            cabin: 'economy',
            insurance: 'yes',
          },
        },
      });
      return created;
    };
  const cancel = (id: string) => () => ({
    action: { name: 'cancel_reservation', args: { reservation_id: id } },
  });
  const measure = (
    withPolicy: Spec | undefined,
    id: string,
    expected: string,
    spec: Spec = intent,
  ) => {
    const timings = measureDecisions({
      count: proposals,
      renewEvery: 1,
      session: session(withPolicy, spec),
      proposal: cancel(id),
      expected,
    });
    if (!timings.ok) throw new Error(`policy bench: a decision was not ${expected}`);
    return timings;
  };
  const rows = [
    [
      'allowed (both permit)',
      measure(undefined, 'ABC123', 'allow'),
      measure(policy, 'ABC123', 'allow'),
      measure(undefined, 'ABC123', 'allow', policyAlone),
    ],
    [
      'refused (both refuse)',
      measure(undefined, 'XYZ999', 'revise'),
      measure(policy, 'XYZ999', 'revise'),
      measure(undefined, 'XYZ999', 'revise', policyAlone),
    ],
  ] as const;
  console.log(
    `\nIntent alone vs intent + policy (examples/policy; ${proposals.toLocaleString('en-US')} proposals per cell, a fresh session each; µs)`,
  );
  console.log(
    table(
      [
        'proposal',
        'intent p50',
        'composed p50',
        'ratio',
        'policy rules alone p50',
        'floor ratio',
        'intent p99',
        'composed p99',
      ],
      rows.map(([name, alone, composed, rulesAlone]) => [
        name,
        formatMicros(alone.p50),
        formatMicros(composed.p50),
        (composed.p50 / alone.p50).toFixed(2),
        formatMicros(rulesAlone.p50),
        ((alone.p50 + rulesAlone.p50) / alone.p50).toFixed(2),
        formatMicros(alone.p99),
        formatMicros(composed.p99),
      ]),
    ),
  );
  console.log(
    "Target: composed p50 ≤ 2× the intent alone. Floor: the intent's check plus the policy's rules judged alone ((intent + rules alone) / intent).",
  );
}
