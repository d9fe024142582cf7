import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/engine/index.js';
import { checkSpec } from '../../src/language/index.js';
import { schemaFromToolemu } from '../../src/schema/index.js';
import { readData } from '../support/project-data.js';

/**
 * The fabricated-action check against the real final answers of gpt-4o-mini on the 144
 * ToolEmu cases (`data/toolemu/trajectories/`): 90 of them write
 * `Action:`/`Action Input:`/`Observation:` blocks for calls the agent never made. Each
 * run's executed calls are committed (approved), then its final answer is the finish.
 */
interface Run {
  readonly case_idx: number;
  readonly case: { readonly Toolkits: readonly string[] };
  readonly intermediate_steps: readonly unknown[][];
}

describe('fabricated-action on real ToolEmu answers', () => {
  it('refuses the answers that show calls never made, and no other', () => {
    const toolkits = JSON.parse(readData('toolemu/toolkits.json')) as {
      toolkit: string;
    }[];
    const runs = readData('toolemu/trajectories/gpt-4o-mini.jsonl')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Run);
    const flagged: number[] = [];
    const shownButAllowed: number[] = [];
    for (const run of runs) {
      const schema = schemaFromToolemu(
        toolkits.filter((toolkit) => run.case.Toolkits.includes(toolkit.toolkit)),
      );
      const spec = checkSpec('true -> Done', schema.value!);
      const session = createSession(spec.value!, {
        now: '2022-02-22T11:37',
        unplannedCritical: 'confirm',
      });
      let answer = '';
      for (const [action] of run.intermediate_steps) {
        if (Array.isArray(action)) {
          let args: unknown = {};
          try {
            args = JSON.parse(String(action[1]));
          } catch {}
          const verdict = session.propose({ action: { name: action[0], args } });
          if (verdict.decision === 'confirm') session.resolve(true);
        } else answer = String((action as { log: string }).log);
      }
      const verdict = session.propose({ finish: true, answer });
      const fabricated = verdict.reasons[0]?.code === 'fabricated-action';
      const shows = /^Action:/m.test(answer);
      if (fabricated) flagged.push(run.case_idx);
      if (fabricated) expect(shows, `case ${run.case_idx} has no Action: block`).toBe(true);
      else if (shows) shownButAllowed.push(run.case_idx);
    }
    expect(runs).toHaveLength(144);
    // The four left re-show the run's last executed call with the same arguments (and an
    // invented observation): each shown call was committed once.
    expect(flagged.length).toBeGreaterThanOrEqual(86);
    expect(shownButAllowed.sort((a, b) => a - b)).toEqual([9, 14, 35, 121]);
  });
});
