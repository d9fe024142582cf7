import { describe, expect, it } from 'vitest';
import { parseListen } from '../../src/cli/flags/listen-flag.js';
import { run } from './run.js';

/** `serve` and `mcp-proxy` read `--listen` with one parser: what one refuses, so does the other. */
const commands = {
  serve: (listen: string) => ['serve', '--listen', listen, '--token', 'secret-token-1234'],
  'mcp-proxy': (listen: string) => [
    'mcp-proxy',
    '--listen',
    listen,
    '--spec',
    'spec.intent',
    '--',
    'node',
    'upstream.js',
  ],
} as const;

describe('--listen', () => {
  it.each(['nowhere', '70000', 'a:b:1', '127.0.0.1:', ':', '[::1]', '-1'])(
    "both commands refuse '%s' with exit 2",
    async (listen) => {
      for (const [name, argv] of Object.entries(commands)) {
        const result = await run(argv(listen), { env: {} });
        expect(result.code, name).toBe(2);
        expect(result.stderr, name).toContain(`--listen: '${listen}' is not HOST:PORT`);
      }
    },
  );

  it("lets mcp-proxy take ':PORT' as serve does (it stops later, at the missing spec file)", async () => {
    const result = await run(commands['mcp-proxy'](':8931'), { env: {} });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('--listen');
    expect(result.stderr).toContain('spec.intent');
  });

  it.each([
    ['8787', '127.0.0.1', 8787],
    [':8787', '127.0.0.1', 8787],
    ['0.0.0.0:8931', '0.0.0.0', 8931],
    ['[::1]:0', '::1', 0],
    ['localhost:65535', 'localhost', 65535],
  ])("reads '%s' as %s port %i", (listen, host, port) => {
    expect(parseListen(listen, '127.0.0.1:8787')).toEqual({ host, port });
  });
});
