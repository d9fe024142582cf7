import { describe, expect, it } from 'vitest';
import { finishWith } from './r2-answer-support.js';

/**
 * E7: an answer whose shown input nests JSON ~6,000 deep overflowed the stack
 * (`internal-error`, at a depth that depends on the host). The answer check bounds the
 * nesting it follows: deeper is too tangled to read, and refused as `fabricated-action`.
 */
describe('E7: deeply nested JSON in an answer is refused within fixed bounds', () => {
  it.each([
    ['objects', `${'{"k":'.repeat(6000)}1${'}'.repeat(6000)}`],
    ['lists', `{"path": ${'['.repeat(9000)}${']'.repeat(9000)}}`],
    ['objects, barely deeper than the bound', `${'{"k":'.repeat(70)}1${'}'.repeat(70)}`],
  ])('%s', (_, input) => {
    const verdict = finishWith(`Action: RemoveFile\nAction Input: ${input}`);
    expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(verdict.reasons[0]?.code).toBe('fabricated-action');
  });

  it('says why when nothing else is shown', () => {
    const verdict = finishWith(`Here it is: ${'{"k":'.repeat(6000)}1${'}'.repeat(6000)}`);
    expect(verdict.reasons[0]?.code).toBe('fabricated-action');
    expect(verdict.feedback).toContain('deeper than 64 levels');
  });

  it('an answer of many calls that never close is refused as too tangled', () => {
    const verdict = finishWith('ListFolder('.repeat(9000));
    expect(verdict.reasons[0]?.code).toBe('fabricated-action');
    expect(verdict.feedback).toContain('more call-like text than can be checked');
  });

  it('reads nesting within the bound as before', () => {
    const nested = `{"path": "/reports", "note": ${'['.repeat(20)}${']'.repeat(20)}}`;
    expect(finishWith(`{"name": "ListFolder", "arguments": ${nested}}`).reasons[0]?.code).toBe(
      'fabricated-action',
    );
    expect(finishWith('{"name": "ListFolder", "arguments": {"path": "/reports"}}').decision).toBe(
      'allow',
    );
  });
});
