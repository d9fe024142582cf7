import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectStdio, newClient, root, type StdioProxy, sandbox } from './helpers.js';

const everything = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/**
 * Resources and prompts pass through unchanged: the MCP SDK client → `intentguard
 * mcp-proxy` → the reference "everything" server, compared with the server called directly.
 */
describe('mcp-proxy forwards resources and prompts', () => {
  let proxy: StdioProxy | undefined;
  const box = sandbox();
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(() => box.cleanup());

  it('lists and reads resources and prompts exactly as the upstream does', async () => {
    const specPath = join(box.dir, '..', 'everything.intent');
    writeFileSync(specPath, 'echo(message = "hi") -> Echoed\nEchoed -> Done\n');
    proxy = await connectStdio(['--spec', specPath, '--confirm', 'deny'], box.dir, undefined, [
      '--',
      process.execPath,
      everything,
      'stdio',
    ]);
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
