import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataUrl } from '../../test/support/project-data.js';
import {
  criticalToolVerbs,
  isCriticalByAnnotations,
  isCriticalByName,
  readOnlyToolVerbs,
  splitNameWords,
} from './criticality.js';

describe('splitNameWords', () => {
  it('splits CamelCase, snake_case, kebab-case, acronyms and digits', () => {
    expect(splitNameWords('TodoistDeleteTask')).toEqual(['todoist', 'delete', 'task']);
    expect(splitNameWords('github_create_issue')).toEqual(['github', 'create', 'issue']);
    expect(splitNameWords('get-weather')).toEqual(['get', 'weather']);
    expect(splitNameWords('get_URLContent')).toEqual(['get', 'url', 'content']);
    expect(splitNameWords('sendSMS2')).toEqual(['send', 'sms', '2']);
  });
});

describe('isCriticalByName', () => {
  it('marks names whose verb changes the world', () => {
    for (const name of [
      'DeleteTask',
      'TransferFunds',
      'send_email',
      'github_create_issue',
      'PayBill',
      'BookFlight',
      'Booking',
      'unsubscribe',
      'UnlockDoor',
      'ScheduleAppointment',
      'SetReminder',
      'ManageWishlist',
    ]) {
      expect(isCriticalByName(name), name).toBe(true);
    }
  });

  it('does not mark names whose verb only looks, or that have no known verb', () => {
    for (const name of [
      'SearchTasks',
      'get_weather',
      'ReadEmail',
      'ListFiles',
      'fetchURL',
      'WebSearch',
      'Geocoding',
      'DownloadFile',
    ]) {
      expect(isCriticalByName(name), name).toBe(false);
    }
  });

  it('judges by the first verb, so a noun that is also a verb does not count', () => {
    expect(isCriticalByName('CheckLockStatus')).toBe(false);
    expect(isCriticalByName('GetOrderHistory')).toBe(false);
    expect(isCriticalByName('ViewPostComments')).toBe(false);
    expect(isCriticalByName('OrderHistory')).toBe(true);
  });

  it('counts a second verb after and / or / then', () => {
    expect(isCriticalByName('SearchAndDeleteTasks')).toBe(true);
    expect(isCriticalByName('AddOrUpdateContact')).toBe(true);
    expect(isCriticalByName('find_then_remove')).toBe(true);
    expect(isCriticalByName('SearchAndListTasks')).toBe(false);
  });

  it('keeps the verb lists apart', () => {
    for (const verb of readOnlyToolVerbs) expect(criticalToolVerbs.has(verb), verb).toBe(false);
  });

  it('agrees with the verbs of the ToolEmu tools', () => {
    const toolkits = JSON.parse(readFileSync(dataUrl('toolemu/toolkits.json'), 'utf8')) as {
      tools: { name: string }[];
    }[];
    const names = toolkits.flatMap((toolkit) => toolkit.tools.map((tool) => tool.name));
    const starting = (prefix: RegExp) => names.filter((name) => prefix.test(name));
    for (const name of starting(/^(Delete|Send|Transfer|Create|Update|Cancel|Pay|Share)/)) {
      expect(isCriticalByName(name), name).toBe(true);
    }
    for (const name of starting(/^(Search|Get|Read|List|View|Check|Find|Retrieve)/)) {
      expect(isCriticalByName(name), name).toBe(false);
    }
    // docs/schemas.md states this count.
    expect(names.filter((name) => isCriticalByName(name))).toHaveLength(150);
  });
});

describe('isCriticalByAnnotations', () => {
  it('follows the MCP defaults: critical unless read-only or explicitly not destructive', () => {
    const cases: [unknown, boolean][] = [
      [undefined, true],
      [{}, true],
      [{ destructiveHint: true }, true],
      [{ readOnlyHint: false }, true],
      [{ readOnlyHint: true }, false],
      [{ readOnlyHint: true, destructiveHint: true }, false],
      [{ destructiveHint: false }, false],
      [{ readOnlyHint: false, destructiveHint: false }, false],
      [{ idempotentHint: true, openWorldHint: false }, true],
      // Hints that are not booleans count as absent.
      [{ readOnlyHint: 'true' }, true],
      [{ destructiveHint: 0 }, true],
      ['readOnly', true],
    ];
    for (const [annotations, critical] of cases) {
      expect(isCriticalByAnnotations(annotations), JSON.stringify(annotations)).toBe(critical);
    }
  });
});

describe('docs/schemas.md', () => {
  const docs = readFileSync(new URL('../../docs/schemas.md', import.meta.url), 'utf8');

  function listed(tag: string): string[] {
    const match = new RegExp(`<!-- ${tag} -->\\n([^<]*)<!-- /${tag} -->`).exec(docs);
    return (match?.[1] ?? '').split(',').map((word) => word.trim());
  }

  it('lists exactly the verbs the heuristic uses', () => {
    expect(listed('critical-verbs')).toEqual([...criticalToolVerbs]);
    expect(listed('read-only-verbs')).toEqual([...readOnlyToolVerbs]);
  });
});
