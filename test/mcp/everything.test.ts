import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  connectStdio,
  everythingServer as everything,
  everythingUpstream,
  newClient,
  type StdioProxy,
  sandbox,
  textOf,
} from './helpers.js';

let proxy: StdioProxy | undefined;
const box = sandbox();
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});
afterAll(() => box.cleanup());

/**
 * Resources and prompts pass through unchanged: the MCP SDK client → `intentguard
 * mcp-proxy` → the reference "everything" server, compared with the server called directly.
 */
describe('mcp-proxy forwards resources and prompts', () => {
  it('lists and reads resources and prompts exactly as the upstream does', async () => {
    const specPath = join(box.dir, '..', 'everything.intent');
    writeFileSync(specPath, 'echo(message = "hi") -> Echoed\nEchoed -> Done\n');
    proxy = await connectStdio(
      ['--spec', specPath, '--confirm', 'deny'],
      box.dir,
      undefined,
      everythingUpstream,
    );
    const direct = newClient();
    await direct.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [everything, 'stdio'],
        stderr: 'pipe',
      }),
    );
    try {
      const capabilities = proxy.client.getServerCapabilities();
      expect(capabilities?.resources).toBeDefined();
      expect(capabilities?.prompts).toBeDefined();
      const resources = await proxy.client.listResources();
      expect(resources.resources.length).toBeGreaterThan(0);
      expect(resources).toEqual(await direct.listResources());
      const uri = resources.resources[0]?.uri as string;
      expect(await proxy.client.readResource({ uri })).toEqual(await direct.readResource({ uri }));
      const prompts = await proxy.client.listPrompts();
      expect(prompts).toEqual(await direct.listPrompts());
      expect(await proxy.client.listResourceTemplates()).toEqual(
        await direct.listResourceTemplates(),
      );
    } finally {
      await direct.close();
    }
  }, 60_000);
});

/**
 * Feedback names each tool as the client lists it: the spec writes `get_sum`, the
 * upstream's tool is `get-sum`, and a model that calls the name the feedback gives
 * reaches the upstream. The "model" here is a client that reads the refusal and calls
 * exactly what it names, with the arguments it names.
 */
describe('mcp-proxy feedback names tools as the client knows them', () => {
  it('a model that follows the feedback calls get-sum, and the call reaches the upstream', async () => {
    const specPath = join(box.dir, '..', 'names.intent');
    writeFileSync(
      specPath,
      [
        'get_sum(a = 2, b = 3) -> Summed',
        'Summed & echo(message = "5") -> Echoed',
        'Echoed -> Done',
        'reject toggle_simulated_logging() because "logging stays as it is"',
        '',
      ].join('\n'),
    );
    proxy = await connectStdio(
      ['--spec', specPath, '--confirm', 'deny'],
      box.dir,
      undefined,
      everythingUpstream,
    );
    const listed = (await proxy.client.listTools()).tools.map((tool) => tool.name);
    expect(listed).toContain('get-sum');
    expect(listed).not.toContain('get_sum');

    const early = await proxy.client.callTool({ name: 'echo', arguments: { message: '5' } });
    expect(early.isError).toBe(true);
    const feedback = textOf(early);
    expect(feedback).toContain('call get-sum with a equal to 2 and b equal to 3');
    expect(feedback).not.toMatch(/get_sum|echo_/);
    const named = /call ([^\s,;.]+) with a equal to (\d+) and b equal to (\d+)/.exec(feedback);
    expect(named?.[1]).toBe('get-sum');
    const sum = await proxy.client.callTool({
      name: named?.[1] as string,
      arguments: { a: Number(named?.[2]), b: Number(named?.[3]) },
    });
    expect(sum.isError).toBeFalsy();
    expect(textOf(sum)).toBe('The sum of 2 and 3 is 5.');
    const echoed = await proxy.client.callTool({ name: 'echo', arguments: { message: '5' } });
    expect(echoed.isError).toBeFalsy();
    expect(textOf(echoed)).toContain('5');

    const rejected = await proxy.client.callTool({
      name: 'toggle-simulated-logging',
      arguments: {},
    });
    expect(rejected.isError).toBe(true);
    expect(textOf(rejected)).toContain('every toggle-simulated-logging call');
    expect(textOf(rejected)).not.toContain('toggle_simulated_logging');
  }, 60_000);
});
