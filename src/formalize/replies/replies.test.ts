import { describe, expect, it } from 'vitest';
import { parseCheckerReply } from './checker-reply.js';
import { parseGoalReply } from './goal-reply.js';
import { extractJson } from './json-in-reply.js';

describe('replies', () => {
  it('finds JSON in fences, bare, or inside prose', () => {
    expect(extractJson('```json\n{"a": 1}\n```')).toEqual({ value: { a: 1 } });
    expect(extractJson('{"a": 2}')).toEqual({ value: { a: 2 } });
    expect(extractJson('Verdict follows: {"a": 3} — done.')).toEqual({ value: { a: 3 } });
    expect(extractJson('no json')).toEqual({ problem: 'it contains no JSON object' });
    expect('problem' in extractJson('{"a": }')).toBe(true);
  });

  it('reads the checker verdict case-insensitively, with discrepancies as strings or objects', () => {
    expect(
      parseCheckerReply(
        '{"verdict": "Disagree", "discrepancies": ["x", {"issue": "y", "fix": "z"}]}',
      ),
    ).toEqual({
      ok: true,
      value: { agree: false, discrepancies: [{ issue: 'x' }, { issue: 'y', fix: 'z' }] },
    });
    expect(parseCheckerReply('{"verdict": "agree"}')).toEqual({
      ok: true,
      value: { agree: true, discrepancies: [] },
    });
    const bad = parseCheckerReply('{"verdict": "maybe"}');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problem).toContain('verdict');
  });

  it('validates and bounds the goal analysis and serialises it canonically', () => {
    const parsed = parseGoalReply(
      JSON.stringify({
        outcomes: ['done'],
        goal: 'g',
        parameters: [{ name: 'n', value: 5 }],
        summary: 'x'.repeat(5000),
        junk: true,
      }),
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(Object.keys(JSON.parse(parsed.text))).toEqual([
      'goal',
      'summary',
      'parameters',
      'constraints',
      'safety',
      'outcomes',
    ]);
    expect(parsed.value.summary?.length).toBe(1000);
    expect(parseGoalReply('{"goal": ""}').ok).toBe(false);
    expect(parseGoalReply('{"parameters": []}').ok).toBe(false);
  });
});
