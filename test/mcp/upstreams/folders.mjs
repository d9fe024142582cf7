// An upstream MCP server for the proxy's tests, started as a real process:
//   node folders.mjs --count N [--no-nda] --log FILE
// list_files returns N entries as structuredContent (an NDA first unless --no-nda);
// delete_file appends the path it was asked to delete to FILE, so a test can tell what
// reached the upstream.
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const argv = process.argv.slice(2);
const option = (name) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
};
const count = Number(option('--count') ?? '2');
const nda = !argv.includes('--no-nda');
const log = option('--log');

const path = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
const tools = [
  {
    name: 'list_files',
    description: 'List the files of a folder.',
    annotations: { readOnlyHint: true },
    inputSchema: path,
    outputSchema: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
    },
  },
  {
    name: 'delete_file',
    description: 'Delete a file.',
    annotations: { destructiveHint: true },
    inputSchema: path,
  },
];

const server = new Server({ name: 'folders', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const args = request.params.arguments ?? {};
  if (request.params.name === 'list_files') {
    const items = [];
    if (nda) items.push({ name: 'nda-acme-signed.pdf' });
    while (items.length < count) items.push({ name: `scan-${items.length}.png` });
    const structuredContent = { items };
    return { content: [{ type: 'text', text: `${items.length} files` }], structuredContent };
  }
  if (request.params.name === 'delete_file') {
    if (log) appendFileSync(log, `${String(args.path)}\n`);
    return { content: [{ type: 'text', text: `deleted ${String(args.path)}` }] };
  }
  return { content: [{ type: 'text', text: 'unknown tool' }], isError: true };
});
await server.connect(new StdioServerTransport());
