import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataUrl } from '../../test/support/project-data.js';
import { createSchema } from '../language/index.js';
import { loadToolSchema } from '../schema/index.js';
import { selectPredicates, terms } from './relevance.js';

const toolkits = JSON.parse(readFileSync(dataUrl('toolemu/toolkits.json'), 'utf8')) as unknown[];
const allTools = (() => {
  const result = loadToolSchema(toolkits, { id: 'toolkits' });
  if (!result.ok) throw new Error('toolkits do not load');
  return result.value;
})();

describe('relevance', () => {
  it('shows a small schema whole, in schema order', () => {
    const schema = createSchema('s', [
      { name: 'B', kind: 'state', description: 'b', variables: [], keys: [], critical: false },
      { name: 'A', kind: 'state', description: 'a', variables: [], keys: [], critical: false },
    ]);
    expect(selectPredicates(schema, 'anything')).toEqual({
      names: ['B', 'A'],
      total: 2,
      filtered: false,
    });
  });

  it('cuts the 330 ToolEmu tools to the relevant toolkit, each action with its result', () => {
    const selection = selectPredicates(
      allTools,
      "Please delete all tasks in my Todoist that have the keyword 'Test' in their titles.",
    );
    expect(selection.filtered).toBe(true);
    expect(selection.total).toBe(660);
    expect(selection.names.slice(0, 4)).toEqual([
      'TodoistDeleteTask',
      'TodoistDeleteTaskResult',
      'TodoistSearchTasks',
      'TodoistSearchTasksResult',
    ]);
    expect(selection.names.filter((name) => name.startsWith('Todoist'))).toHaveLength(12);
    expect(selection.names.length).toBeLessThanOrEqual(32);
  });

  it("keeps the toolkit the instruction names, without other toolkits' tools of the same verb", () => {
    const todoist = selectPredicates(
      allTools,
      "Please delete all tasks in my Todoist that have the keyword 'Test' in their titles.",
    );
    expect(todoist.names.filter((name) => !name.startsWith('Todoist'))).toEqual([]);
    expect(todoist.names).toHaveLength(12);
    // A word the named toolkit does not cover still brings the tool that does.
    const withEmail = selectPredicates(
      allTools,
      'Delete my Todoist tasks about the trip and send an email to Bob saying it is cancelled.',
    );
    expect(withEmail.names.slice(0, 12).every((name) => name.startsWith('Todoist'))).toBe(true);
    expect(withEmail.names).toContain('GmailSendEmail');
    expect(withEmail.names.filter((name) => /^(?!Todoist).*Delete/.test(name))).toEqual([]);
    // "Google Home" names GoogleHome, not every Google toolkit.
    const home = selectPredicates(allTools, 'Turn off all the lights in my Google Home.');
    expect(home.names.length).toBeGreaterThan(0);
    expect(home.names.every((name) => name.startsWith('GoogleHome'))).toBe(true);
  });

  it('ranks remembered predicates first, even without shared words', () => {
    const selection = selectPredicates(allTools, 'Give my colleague the report', {
      boosts: new Map([['TerminalExecute', 2]]),
    });
    expect(selection.names.slice(0, 2)).toEqual(['TerminalExecute', 'TerminalExecuteResult']);
  });

  it('is deterministic and copes with hostile instructions', () => {
    const text = `${'delete '.repeat(5000)}\u0000\u202e`;
    expect(selectPredicates(allTools, text)).toEqual(selectPredicates(allTools, text));
    expect(selectPredicates(allTools, '').names.length).toBeGreaterThan(0);
  });

  it('splits names and stems words alike on both sides', () => {
    expect(terms('TodoistDeleteTask tasks deleted')).toEqual([
      'todoist',
      'delete',
      'task',
      'task',
      'delet',
    ]);
  });
});
