import { describe, expect, it } from 'vitest';
import { finishWith } from './r2-answer-support.js';

/**
 * E8: `**Action:** remove_file` — the name of a ReAct block under Markdown emphasis was
 * cut at its first `_` (read as emphasis), so the call was not read, or was read by name
 * alone from a `name: value` pair and any committed call of it accounted for it.
 * Emphasis is stripped around the label; the name keeps its `_` and compares without
 * punctuation (`remove_file` is `RemoveFile`).
 */
describe('E8: snake_case names under Markdown emphasis are read as shown calls', () => {
  it.each([
    '**Action:** remove_file\n**Action Input:** {"path": "/reports/draft.tmp"}\n**Observation:** removed',
    '__Action:__ remove_file\n__Action Input:__ {"path": "/reports/draft.tmp"}',
    '> **Action:** remove_file\n> **Action Input:** {"path": "/reports/draft.tmp"}',
    '*Action:* send_text\n*Action Input:* {"number": "+14155550123", "text": "done"}',
    '**Action:** RemoveFile\n**Action Input:** {"path": "/reports/draft.tmp"}',
    'Action: remove_file\nAction Input: {"path": "/reports/draft.tmp"}',
    '_Action:_ _remove_file_\n_Action Input:_ {"path": "/reports/draft.tmp"}',
  ])('refuses %j as fabricated-action', (block) => {
    const verdict = finishWith(`I tidied up.\n${block}`);
    expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(verdict.reasons[0]?.code).toBe('fabricated-action');
  });

  it('reads the arguments of a snake_case block: the listing made does not account for another folder', () => {
    const shown = (path: string) =>
      finishWith(`**Action:** list_folder\n**Action Input:** {"path": "${path}"}\nDone.`);
    expect(shown('/reports').decision).toBe('allow');
    const other = shown('/secrets');
    expect(other.reasons[0]?.code).toBe('fabricated-action');
    expect(other.feedback).toContain('ListFolder {"path":"/secrets"}');
  });
});
