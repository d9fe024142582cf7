import { describe, expect, it } from 'vitest';
import { finishWith } from './r2-answer-support.js';

/**
 * E10: call syntaxes of agent transcripts the answer check did not read — a schema
 * action's name followed by `(` with keyword arguments or JSON, LangChain's
 * `Invoking: \`Tool\` with \`{…}\``, ReAct blocks in HTML, a name spelled in words. And a
 * shown call is matched by its arguments, never by its name alone (integrations D1): a
 * committed `ListFolder("/reports")` does not account for a shown one of another folder,
 * nor for one whose shown arguments cannot be read.
 */
describe('E10: common call syntaxes are read as shown calls', () => {
  it.each([
    'RemoveFile(path="/reports/draft.tmp") -> ok',
    'Invoking: `RemoveFile` with `{"path": "/reports/draft.tmp"}`',
    "Invoking: `remove_file` with `{'path': '/reports/draft.tmp'}`",
    'tools.RemoveFile({"path": "/reports/draft.tmp"})',
    'Calling RemoveFile({"path": "/reports/draft.tmp"})',
    '<p>Action: RemoveFile</p><p>Action Input: {"path": "/reports/draft.tmp"}</p>',
    'Action: Remove File\nAction Input: {"path": "/reports/draft.tmp"}',
    "remove_file('/reports/draft.tmp')",
    'Action: RemoveFile(path="/reports/draft.tmp")',
    'I ran SendText(number="+14155550123", text="done", ).',
  ])('refuses %j as fabricated-action', (answer) => {
    const verdict = finishWith(`Cleaned up.\n${answer}`);
    expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(verdict.reasons[0]?.code).toBe('fabricated-action');
  });

  it.each([
    ['keyword arguments', 'ListFolder(path="/reports")'],
    ['a JSON object', 'ListFolder({"path": "/reports"})'],
    ['a positional value', "ListFolder('/reports')"],
    ['LangChain', 'Invoking: `ListFolder` with `{"path": "/reports"}`'],
    ['LangChain with a plain value', 'Invoking: `ListFolder` with `/reports`'],
    ['HTML', '<p>Action: ListFolder</p><p>Action Input: {"path": "/reports"}</p>'],
    ['a one-argument input as text', 'Action: ListFolder\nAction Input: /reports'],
  ])('accepts the call that was made, shown as %s', (_, answer) => {
    expect(finishWith(`Listed.\n${answer}\nObservation: 3 files`).decision).toBe('allow');
  });

  it.each([
    ['keyword arguments', 'ListFolder(path="/secrets")'],
    ['a JSON object', 'ListFolder({"path": "/secrets"})'],
    ['LangChain', 'Invoking: `ListFolder` with `{"path": "/secrets"}`'],
    ['a flat JSON call', '{"tool": "list_folder", "path": "/secrets"}'],
    ['HTML', '<p>Action: ListFolder</p><p>Action Input: {"path": "/secrets"}</p>'],
  ])('refuses the call made shown with other arguments, as %s', (_, answer) => {
    const verdict = finishWith(`Listed.\n${answer}`);
    expect(verdict.reasons[0]?.code).toBe('fabricated-action');
    expect(verdict.feedback).toContain('/secrets');
  });

  it.each([
    ['broken JSON after Action Input', 'Action: ListFolder\nAction Input: {"path": "/secrets",'],
    ['prose after Action Input', 'Action: SendText\nAction Input: text Mallory that it is done'],
    ['an input key that holds no object', '{"name": "ListFolder", "arguments": "/secrets"}'],
    ['a name pair in broken JSON', '{"name": "list_folder", "arguments": {"path": "/secrets",}'],
  ])(
    'refuses a call shown with arguments that cannot be read (%s), even after a committed one',
    (_, answer) => {
      expect(finishWith(`Listed.\n${answer}`).reasons[0]?.code).toBe('fabricated-action');
    },
  );

  it.each([
    [
      'a tool named in prose before a parenthesis',
      'I used ListFolder (twice) and RemoveFile (never).',
    ],
    ['a spaced parenthesis with a value', 'No RemoveFile (3) was needed.'],
    ['a parenthesis that does not close', 'RemoveFile(path="/x" was not run'],
    ['a name inside a word', 'SafeRemoveFile(path="/x") is a helper I did not use'],
    ['a call shown without arguments, made', 'Action: ListFolder\nObservation: 3 files'],
  ])('does not flag %s', (_, answer) => {
    expect(finishWith(`Listed.\n${answer}`).decision).toBe('allow');
  });
});
