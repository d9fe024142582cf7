import { CliError } from '../io.js';

/**
 * `--listen HOST:PORT` of `serve` and `mcp-proxy`: `PORT`, `:PORT` and `HOST:PORT` (an
 * IPv6 host in brackets) all read the same; no host means 127.0.0.1, port 0 a free one.
 */
export function parseListen(value: string, example: string): { host: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]*):)?(\d+)$/.exec(value.trim());
  const port = match?.[2] !== undefined ? Number(match[2]) : Number.NaN;
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CliError(
      `--listen: '${value}' is not HOST:PORT (e.g. ${example}; port 0 picks a free one)`,
      2,
    );
  }
  const host = (match[1] ?? '').replace(/^\[|\]$/g, '');
  return { host: host === '' ? '127.0.0.1' : host, port };
}
