import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';
import {
  connectStdio,
  everythingServer,
  everythingUpstream,
  type StdioProxy,
  sandbox,
  textOf,
} from './helpers.js';

/**
 * `intentguard mcp-proxy --policy` (LANGUAGE.md §8): the MCP SDK client → the proxy → the
 * reference "everything" server. The intent plans the echo; the operator's policy permits
 * only a polite one and rejects large sums.
 */
let proxy: StdioProxy | undefined;
const box = sandbox();
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});
afterAll(() => box.cleanup());

const intent = 'echo(message = "hi") -> Echoed\nEchoed -> Done\n';
const policy = [
  '# Echo only greetings the operator approves of; no sums over a hundred.',
  'echo(message = "hello") -> PoliteEcho',
  'reject get_sum(a > 100) because "no sums over a hundred"',
  '',
].join('\n');

function files(name: string, policyText = policy): { spec: string; policy: string } {
  const spec = join(box.dir, '..', `${name}.intent`);
  const policyPath = join(box.dir, '..', `${name}.policy`);
  writeFileSync(spec, intent);
  writeFileSync(policyPath, policyText);
  return { spec, policy: policyPath };
}

describe('mcp-proxy --policy', () => {
  it("refuses a call the intent allows and the policy does not permit, with the policy's reason", async () => {
    const paths = files('permit');
    const audit = join(box.dir, '..', 'policy-audit.db');
    proxy = await connectStdio(
      ['--spec', paths.spec, '--policy', paths.policy, '--confirm', 'deny', '--audit', audit],
      box.dir,
      undefined,
      everythingUpstream,
    );
    const refused = await proxy.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(refused.isError).toBe(true);
    const text = textOf(refused);
    expect(text).toContain("The operator's policy does not permit this echo call");
    expect(text).toContain('"hello"');
    // Without the policy the same call runs (the intent plans it).
    await proxy.close();
    proxy = await connectStdio(
      ['--spec', paths.spec, '--confirm', 'deny'],
      box.dir,
      undefined,
      everythingUpstream,
    );
    const allowed = await proxy.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(allowed.isError).toBeFalsy();
    expect(textOf(allowed)).toContain('hi');
    // The audit's chained record of the run names the policy it was decided under.
    const file = new Database(audit, { readonly: true });
    const body = file.prepare("SELECT body FROM audit WHERE kind = 'run' LIMIT 1").get() as {
      body: string;
    };
    file.close();
    expect(JSON.parse(body.body)).toMatchObject({ spec: intent, policy });
    expect((await run(['audit', 'verify', audit])).code).toBe(0);
  }, 90_000);

  it("--strict: where both refuse, the policy's reason comes first", async () => {
    const paths = files('strict');
    proxy = await connectStdio(
      ['--spec', paths.spec, '--policy', paths.policy, '--strict', '--confirm', 'deny'],
      box.dir,
      undefined,
      everythingUpstream,
    );
    const both = await proxy.client.callTool({ name: 'get-sum', arguments: { a: 200, b: 1 } });
    expect(both.isError).toBe(true);
    const text = textOf(both);
    const policyAt = text.indexOf('no sums over a hundred');
    const intentAt = text.indexOf('get-sum is not part of the plan');
    expect(text).toContain('The policy refuses get-sum with a greater than 100');
    expect(policyAt).toBeGreaterThanOrEqual(0);
    expect(intentAt).toBeGreaterThan(policyAt);
    expect(text).not.toContain('get_sum');
    // A small sum: only strict mode's refusal of an unplanned call, no policy reason.
    const small = await proxy.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 1 } });
    expect(small.isError).toBe(true);
    expect(textOf(small)).not.toContain('policy');
  }, 90_000);

  it('a policy that does not check against the upstream tools: exit 1, located in the policy', async () => {
    const paths = files('broken', 'reject delete_everything(path = "/") because "no"\n');
    const result = await run([
      'mcp-proxy',
      '--spec',
      paths.spec,
      '--policy',
      paths.policy,
      '--',
      process.execPath,
      everythingServer,
      'stdio',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("the policy does not check against the upstream's tools");
    expect(result.stderr).toContain('policy:1:');
    expect(result.stderr).toContain('delete_everything');
    expect(result.stderr).toContain(`(${paths.policy})`);
    const done = files('done', 'echo(message = "x") -> Said\nSaid -> Done\n');
    const withDone = await run([
      'mcp-proxy',
      '--spec',
      done.spec,
      '--policy',
      done.policy,
      '--',
      process.execPath,
      everythingServer,
      'stdio',
    ]);
    expect(withDone.code).toBe(1);
    expect(withDone.stderr).toContain('done-in-policy');
  }, 60_000);
});
