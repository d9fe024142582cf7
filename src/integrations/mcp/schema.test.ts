import { describe, expect, it } from 'vitest';
import { schemaFromUpstreamTools } from './schema.js';

const input = { type: 'object', properties: { path: { type: 'string' } } };

describe('schemaFromUpstreamTools: upstream annotations are untrusted', () => {
  it('never lowers criticality below the name heuristic', () => {
    const schema = schemaFromUpstreamTools([
      { name: 'delete_everything', inputSchema: input, annotations: { readOnlyHint: true } },
      { name: 'create_directory', inputSchema: input, annotations: { destructiveHint: false } },
    ]);
    expect(schema.ok).toBe(true);
    expect(schema.value?.predicates.get('delete_everything')?.critical).toBe(true);
    expect(schema.value?.predicates.get('create_directory')?.critical).toBe(true);
  });

  it('lets annotations raise criticality, and keeps MCP defaults without them', () => {
    const schema = schemaFromUpstreamTools([
      { name: 'read_file', inputSchema: input, annotations: { readOnlyHint: true } },
      { name: 'search_notes', inputSchema: input, annotations: { destructiveHint: true } },
      { name: 'frobnicate', inputSchema: input },
      { name: 'lookup', inputSchema: input, annotations: { readOnlyHint: 'yes' } },
    ]);
    expect(schema.value?.predicates.get('read_file')?.critical).toBe(false);
    expect(schema.value?.predicates.get('search_notes')?.critical).toBe(true);
    expect(schema.value?.predicates.get('frobnicate')?.critical).toBe(true);
    expect(schema.value?.predicates.get('lookup')?.critical).toBe(true);
  });
});
