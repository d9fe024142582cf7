import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type FakeLlmServer,
  startFakeLlmServer,
} from '../../test/formalize/support/fake-llm-server.js';
import {
  agree,
  fenced,
  restaurantInstruction,
  restaurantSchema,
  restaurantSpec,
  serverModel,
} from '../../test/formalize/support/fixtures.js';
import { createGuard } from './create-guard.js';

let server: FakeLlmServer;
beforeEach(async () => {
  server = await startFakeLlmServer();
});
afterEach(async () => {
  await server.close();
});

describe('createGuard from the user instruction', () => {
  it('formalizes once through the model and guards with the checked spec', async () => {
    server.script('encode', fenced(restaurantSpec));
    server.script('check', agree);
    const guard = await createGuard(
      { instruction: restaurantInstruction, model: serverModel(server) },
      restaurantSchema(),
      { now: '2025-03-14T12:00', finishWaitsForResults: false },
    );
    expect(server.of('encode')).toHaveLength(1);
    expect(JSON.stringify(server.of('encode')[0]?.messages)).toContain('Reserve restaurant R');
    // The formalized spec is enforced: finishing before anything is done is refused.
    const finish = guard.finish();
    expect(finish.action).toBe('refuse');
    expect(finish.verdict.reasons[0]?.code).toBe('premature-finish');
    expect(guard.roadmap()).toContain('Reserve');
  });

  it('fails closed when no valid spec comes out of the model', async () => {
    server.script('encode', 'I cannot help with that.', 'Still no.', 'No.', 'No.');
    const guard = await createGuard(
      {
        instruction: restaurantInstruction,
        model: serverModel(server),
        formalize: { rounds: 1, checker: false },
      },
      restaurantSchema(),
      { now: '2025-03-14T12:00' },
    );
    expect(guard.finish().verdict.reasons[0]?.code).toBe('no-spec');
    expect(guard.check({ id: 'c1', name: 'Reserve', args: {} }).verdict.reasons[0]?.code).toBe(
      'no-spec',
    );
  });

  it('needs the schema', async () => {
    await expect(
      createGuard({ instruction: 'x', model: serverModel(server) }, undefined as never),
    ).rejects.toThrow(/'schema'/);
  });
});
