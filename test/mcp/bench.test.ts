import { describe, expect, it } from 'vitest';
import { mcpProxyOverhead } from '../../bench/mcp-overhead.js';

describe('mcpProxyOverhead (the bench function)', () => {
  it('measures direct, proxied and audited calls on real processes', async () => {
    const result = await mcpProxyOverhead({ calls: 20, warmup: 5 });
    expect(result.calls).toBe(20);
    expect(result.direct.p50).toBeGreaterThan(0);
    expect(result.proxied.p50).toBeGreaterThan(0);
    expect(Number.isFinite(result.overheadP50)).toBe(true);
    expect(result.audited.p50).toBeGreaterThan(0);
    expect(Number.isFinite(result.auditedOverheadP50)).toBe(true);
  }, 60_000);
});
