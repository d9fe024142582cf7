import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cli,
  connectHttp,
  filesystemServer,
  root,
  type Sandbox,
  sandbox,
  waitFor,
} from './helpers.js';

/**
 * `--confirm console`: the question goes to the proxy's controlling terminal. The proxy
 * runs under a pseudo-terminal (python3's standard `pty` module), whose input the test
 * types into; the MCP traffic goes over streamable HTTP.
 */
describe('mcp-proxy --confirm console', () => {
  let box: Sandbox | undefined;
  let child: ChildProcess | undefined;
  let client: Client | undefined;

  afterEach(async () => {
    await client?.close().catch(() => undefined);
    client = undefined;
    const running = (): boolean =>
      child !== undefined && child.exitCode === null && child.signalCode === null;
    if (running()) {
      // Ctrl-C on the terminal: SIGINT to the proxy, which stops its upstream and exits.
      child?.stdin?.write('\x03');
      await waitFor(() => !running(), 'the proxy to stop', 5000).catch(() => undefined);
    }
    if (child && running() && child.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
    child = undefined;
    box?.cleanup();
    box = undefined;
  });

  async function start(
    policy?: (dir: string) => string,
  ): Promise<{ output: () => string; url: string }> {
    box = sandbox();
    const policyArgs: string[] = [];
    if (policy) {
      const policyPath = join(box.dir, '..', 'operator.policy');
      writeFileSync(policyPath, policy(box.dir));
      policyArgs.push('--policy', policyPath);
    }
    const command = [
      process.execPath,
      ...cli,
      'mcp-proxy',
      '--listen',
      '127.0.0.1:0',
      '--spec',
      box.specPath,
      ...policyArgs,
      '--confirm',
      'console,deny',
      '--confirm-timeout',
      '20',
      '--',
      process.execPath,
      filesystemServer,
      box.dir,
    ];
    child = spawn('python3', ['-c', 'import pty, sys; pty.spawn(sys.argv[1:])', ...command], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    await waitFor(() => /listening on (\S+)/.test(output), 'the proxy to listen', 30_000);
    const url = /listening on (\S+)/.exec(output)?.[1] as string;
    return { output: () => output, url };
  }

  for (const [typed, approved] of [
    ['y', true],
    ['n', false],
  ] as const) {
    it(`asks on the terminal; '${typed}' ${approved ? 'runs' : 'refuses'} the call`, async () => {
      const proxy = await start();
      client = await connectHttp(proxy.url);
      const dir = box?.dir as string;
      const pending = client.callTool({
        name: 'write_file',
        arguments: { path: join(dir, 'report.txt'), content: 'from the console' },
      });
      await waitFor(() => proxy.output().includes('Approve? [y/N]'), 'the question');
      expect(proxy.output()).toContain("Overwriting the report needs the user's approval");
      child?.stdin?.write(`${typed}\n`);
      const result = await pending;
      expect(result.isError ?? false).toBe(!approved);
      expect(readFileSync(join(dir, 'report.txt'), 'utf8')).toBe(
        approved ? 'from the console' : 'old report\n',
      );
    }, 60_000);
  }

  it('with a policy that also asks: one question, both reasons once, the policy first', async () => {
    const proxy = await start(
      (dir) =>
        `confirm write_file(path = "${dir}/report.txt") because "The operator reviews every overwrite of the report"\n`,
    );
    client = await connectHttp(proxy.url);
    const dir = box?.dir as string;
    const pending = client.callTool({
      name: 'write_file',
      arguments: { path: join(dir, 'report.txt'), content: 'both' },
    });
    await waitFor(() => proxy.output().includes('Approve? [y/N]'), 'the question');
    const output = proxy.output();
    const policyReason = 'Policy: The policy asks the user to approve write_file';
    expect(output.split('The operator reviews every overwrite of the report')).toHaveLength(2);
    const intentReason = "Task: Overwriting the report needs the user's approval";
    expect(output.split(policyReason)).toHaveLength(2);
    expect(output.split(intentReason)).toHaveLength(2);
    expect(output.indexOf(policyReason)).toBeLessThan(output.indexOf(intentReason));
    expect(output.split('Approve? [y/N]')).toHaveLength(2);
    child?.stdin?.write('y\n');
    expect((await pending).isError ?? false).toBe(false);
    expect(readFileSync(join(dir, 'report.txt'), 'utf8')).toBe('both');
  }, 60_000);

  it('C1: the question shows the path the rule constrains before a long content', async () => {
    const proxy = await start();
    client = await connectHttp(proxy.url);
    const dir = box?.dir as string;
    const pending = client.callTool({
      name: 'write_file',
      arguments: { content: 'x'.repeat(3000), path: join(dir, 'report.txt') },
    });
    await waitFor(() => proxy.output().includes('Approve? [y/N]'), 'the question');
    expect(proxy.output()).toContain(
      `intentguard: Create a new file or completely overwrite an existing file… (write_file) with path: ${JSON.stringify(join(dir, 'report.txt'))}, content: "xxx`,
    );
    expect(proxy.output()).toMatch(/x…\[[\d,]+ characters not shown\]…x/);
    child?.stdin?.write('n\n');
    expect((await pending).isError).toBe(true);
  }, 60_000);
});
