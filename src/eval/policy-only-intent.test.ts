import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSession } from '../engine/index.js';
import { checkComposition, checkPolicy, checkSpec, unwrap } from '../language/index.js';
import { policyOnlyIntent } from './policy-only-intent.js';
import { taubenchSchema } from './taubench-schema.js';

/* The policy-only configuration's intent: it plans every critical action and may finish. */

const example = (file: string) =>
  readFileSync(new URL(`../../examples/taubench/${file}`, import.meta.url), 'utf8');
const schema = taubenchSchema(
  { text: example('airline-tools.json'), name: 'airline-tools.json' },
  { text: example('airline-states.json'), name: 'airline-states.json' },
);

describe('policyOnlyIntent', () => {
  it('checks with the airline policy, and leaves every decision but the finish to it', () => {
    const text = policyOnlyIntent(schema);
    const composition = checkComposition(text, example('airline.policy'), schema);
    expect(composition.ok).toBe(true);
    const intent = unwrap(checkSpec(text, schema));
    const policy = unwrap(checkPolicy(example('airline.policy'), schema));
    const session = createSession(intent, { policy, now: '2024-05-15T15:00' });
    // A cancellation the policy does not permit (nothing read first) is the policy's refusal.
    const refused = session.propose({
      action: { name: 'cancel_reservation', args: { reservation_id: 'H8Q05L' } },
    });
    expect(refused.decision).toBe('revise');
    expect(refused.reasons[0]).toMatchObject({ code: 'policy-violation', source: 'policy' });
    // A write the policy does not govern (no permission names it) is not the intent's to refuse.
    expect(
      session.propose({ action: { name: 'transfer_to_human_agents', args: { summary: 'help' } } })
        .decision,
    ).toBe('allow');
    expect(session.propose({ finish: true }).decision).toBe('allow');
  });

  it('without a policy it refuses nothing: the configuration measures the policy alone', () => {
    const session = createSession(unwrap(checkSpec(policyOnlyIntent(schema), schema)), {});
    for (const name of ['cancel_reservation', 'send_certificate']) {
      const args =
        name === 'cancel_reservation'
          ? { reservation_id: 'H8Q05L' }
          : { user_id: 'someone', amount: 100 };
      expect(session.propose({ action: { name, args } }).decision).toBe('allow');
    }
  });
});
