import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/engine/index.js';
import { checkSpec, unwrap } from '../../src/language/index.js';
import { schemaFromMcpTools } from '../../src/schema/index.js';
import { fixedNow, schemaOf, specOf, tool } from './fixtures.js';

/** LANGUAGE.md §7: the answer, `Answer(text)`, the fabricated-action check, and `ask`. */

const schema = schemaOf(
  tool('GmailSearchContacts', { name: 'text' }, { email: 'text' }),
  tool(
    'GmailSendEmail',
    { to: 'text', subject: 'text', body: 'text' },
    { success: 'boolean' },
    {
      critical: true,
    },
  ),
  tool(
    'BankTransfer',
    { to: 'text', amount: 'number' },
    { success: 'boolean' },
    { critical: true },
  ),
);

const spec = specOf(
  [
    'GmailSearchContacts(name = "Alice") -> Searched',
    'Searched & GmailSendEmail(to = "alice@x.org") -> Sent',
    'Searched -> Done',
  ].join('\n'),
  schema,
);

/** A session where the search ran (and was observed), and nothing else. */
function searched() {
  const session = createSession(spec, { now: fixedNow });
  expect(
    session.propose({ action: { name: 'GmailSearchContacts', args: { name: 'Alice' } } }).decision,
  ).toBe('allow');
  session.observe({ updates: { GmailSearchContactsResult: { email: 'alice@x.org' } } });
  return session;
}

function finishWith(answer: string) {
  return searched().propose({ finish: true, answer });
}

const sendBlock = [
  'I found Alice. Now I will email her.',
  '',
  'Action: GmailSendEmail',
  'Action Input: {"to": "alice@x.org", "subject": "Hi", "body": "Hello"}',
  '',
  'Observation: {"success": true}',
  'Thought: The email was sent.',
  'Final Answer: I emailed Alice.',
].join('\n');

describe('fabricated-action', () => {
  it('refuses a finish whose answer shows a call that was never made, listing it', () => {
    const verdict = finishWith(sendBlock);
    expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(verdict.reasons[0]).toMatchObject({
      code: 'fabricated-action',
      actions: ['GmailSendEmail'],
    });
    expect(verdict.feedback).toContain('never carried out: GmailSendEmail {"to":"alice@x.org"');
  });

  it('whatever the rules say: Done holds, and the finish is still refused', () => {
    const session = searched();
    expect(session.status().done).toBe(true);
    expect(session.propose({ finish: true, answer: sendBlock }).decision).toBe('revise');
    expect(session.propose({ finish: true, answer: 'I found Alice: alice@x.org.' }).decision).toBe(
      'allow',
    );
  });

  it('accepts an answer that recounts calls that were made, with their arguments', () => {
    const answer = [
      'Action: GmailSearchContacts',
      'Action Input: {"name": "Alice"}',
      'Observation: {"email": "alice@x.org"}',
      'Final Answer: Alice is alice@x.org.',
    ].join('\n');
    expect(finishWith(answer).decision).toBe('allow');
  });

  it('refuses a shown call whose arguments differ from every committed one', () => {
    const answer = 'Action: GmailSearchContacts\nAction Input: {"name": "Mallory"}\n';
    expect(finishWith(answer).reasons[0]?.code).toBe('fabricated-action');
  });

  it('a list shown with one empty text is not the empty list the call was made with, nor is "∅" an argument left out', () => {
    const lists = schemaOf(tool('Tag', { labels: 'list<text>', note: 'text' }, { ok: 'boolean' }));
    const session = () => {
      const tagged = createSession(specOf('Tag() -> Tagged\nTagged -> Done', lists), {
        now: fixedNow,
      });
      expect(tagged.propose({ action: { name: 'Tag', args: {} } }).decision).toBe('allow');
      return tagged;
    };
    const shown = (input: string) =>
      session().propose({ finish: true, answer: `Action: Tag\nAction Input: ${input}\n` })
        .reasons[0]?.code;
    expect(shown('{"labels": []}')).toBeUndefined();
    expect(shown('{"labels": [""]}')).toBe('fabricated-action');
    expect(shown('{"note": "∅"}')).toBe('fabricated-action');
  });

  it('counts: one committed call does not account for the same call shown twice', () => {
    const block = 'Action: GmailSearchContacts\nAction Input: {"name": "Alice"}\n';
    expect(finishWith(block).decision).toBe('allow');
    expect(finishWith(`${block}\n${block}`).reasons[0]?.code).toBe('fabricated-action');
  });

  it('each shown call finds a committed call of its own, whatever the order it is shown in', () => {
    const transfers = specOf(
      '@repeat\nBankTransfer(amount > 0) -> Paid\nPaid >= 2 -> Done',
      schemaOf(tool('BankTransfer', { to: 'text', amount: 'number' }, { success: 'boolean' })),
    );
    const paidTwice = (answer: string) => {
      const session = createSession(transfers, { now: fixedNow });
      for (const amount of [5, 7])
        expect(
          session.propose({ action: { name: 'BankTransfer', args: { to: 'a', amount } } }),
        ).toMatchObject({ decision: 'allow' });
      return session.propose({ finish: true, answer });
    };
    const shown = (input: string) => `Action: BankTransfer\nAction Input: ${input}\n`;
    for (const answer of [
      // A call shown without arguments (`{}`, `X()`) before one with them.
      `${shown('{}')}${shown('{"amount": 5}')}`,
      `BankTransfer()\n${shown('{"amount": 5}')}`,
      // The first shown could be either transfer; 5 can only be the first one made.
      `${shown('{"to": "a"}')}${shown('{"amount": 5}')}`,
    ])
      expect(paidTwice(answer).decision, answer).toBe('allow');
    // Still one committed call for one shown call: three shown, two made; two of 7 shown.
    for (const answer of [
      `${shown('{"amount": 5}')}${shown('{"to": "a"}')}${shown('{}')}`,
      `${shown('{"amount": 7}')}${shown('{"to": "a", "amount": 7}')}`,
    ])
      expect(paidTwice(answer).reasons[0]?.code, answer).toBe('fabricated-action');
  });

  it.each([
    ['Markdown bold and code', '**Action:** `GmailSendEmail`\n**Action Input:** `{"to": "x"}`'],
    ['a quote and a list item', '> - Action: GmailSendEmail'],
    ['a numbered step', '2. Action 2: GmailSendEmail'],
    ['a code fence', '```\nAction: GmailSendEmail\nAction Input: {"to": "x"}\n```'],
    ['upper case and snake_case', 'ACTION: gmail_send_email'],
    ['extra spacing', '   action   :    GmailSendEmail   '],
    ['full-width letters and colon', 'Ａｃｔｉｏｎ：ＧｍａｉｌＳｅｎｄＥｍａｉｌ'],
    ['zero-width characters', 'Ac\u200btion: Gmail\u200dSend\u2060Email'],
    ['Cyrillic look-alikes', 'Асtion: GmаilSendEmаil'],
    ['a soft hyphen and a bidi control', 'Action:\u00ad \u202eGmailSendEmail'],
    [
      'CRLF and Unicode line separators',
      'Thought: go\r\nAction: GmailSendEmail\u2028Action Input: {}',
    ],
    ['JSON name/arguments', '```json\n{"name": "GmailSendEmail", "arguments": {"to": "x"}}\n```'],
    [
      'JSON tool/tool_input as text',
      '{"tool": "GmailSendEmail", "tool_input": "{\\"to\\": \\"x\\"}"}',
    ],
    [
      'an OpenAI tool call',
      '{"tool_calls": [{"type": "function", "function": {"name": "GmailSendEmail", "arguments": "{\\"to\\": \\"x\\"}"}}]}',
    ],
    ['a Python dict', "{'name': 'GmailSendEmail', 'args': {'to': 'x'}}"],
    ['broken JSON', '{"action": "GmailSendEmail", "action_input": {"to": "x",}'],
    ['a YAML-ish line', '- tool: GmailSendEmail'],
    ['the tool by its ToolEmu source spelling', '{"name": "Gmail.SendEmail"}'],
  ])('sees a call shown with %s', (_, answer) => {
    const verdict = finishWith(answer);
    expect(verdict.reasons[0]?.code).toBe('fabricated-action');
    expect(verdict.reasons[0]?.actions).toEqual(['GmailSendEmail']);
  });

  it.each([
    ['prose naming the tool', 'I used GmailSearchContacts and did not call GmailSendEmail.'],
    ['an action item in prose', 'Action: please confirm that you want me to email Alice.'],
    ['a name that is no action', '{"name": "Alice", "email": "alice@x.org"}'],
    ['an Action line naming something else', 'Action: None\nFinal Answer: nothing to do'],
    ['the word action in a sentence', 'The next action GmailSendEmail needs your approval.'],
  ])('does not flag %s', (_, answer) => {
    expect(finishWith(answer).decision).toBe('allow');
  });

  it('fails closed on an answer too tangled to read within the bounds', () => {
    const answer = `${'{'.repeat(3000)}"name": "x"${'}'.repeat(3000)} `.repeat(3);
    const verdict = finishWith(answer);
    expect(verdict.reasons[0]?.code).toBe('fabricated-action');
    expect(verdict.feedback).toContain('cannot be checked');
  });

  it('a committed call with a date or time accounts for the same call shown', () => {
    const timed = schemaOf(
      tool('SetReminder', { at: 'time', day: 'date', when: 'datetime' }, { success: 'boolean' }),
    );
    const session = createSession(specOf('SetReminder() -> Set\nSet -> Done', timed), {
      now: fixedNow,
    });
    const args = { at: '23:59', day: '2025-03-15', when: '2025-03-15T07:30' };
    expect(session.propose({ action: { name: 'SetReminder', args } }).decision).toBe('allow');
    const shown = (input: object) =>
      `Done.\nAction: SetReminder\nAction Input: ${JSON.stringify(input)}\nObservation: ok`;
    const other = session.propose({ finish: true, answer: shown({ ...args, at: '22:00' }) });
    expect(other.reasons[0]?.code).toBe('fabricated-action');
    expect(session.propose({ finish: true, answer: shown(args) }).decision).toBe('allow');
  });

  it("a call shown with an argument the action does not take was never made; the tool's own names count", () => {
    const answer = (input: string) =>
      `Action: GmailSearchContacts\nAction Input: ${input}\nObservation: {}\nFinal Answer: ok`;
    expect(finishWith(answer('{"name": "Alice"}')).decision).toBe('allow');
    expect(finishWith(answer('{"name": "Alice", "limit": 100}')).reasons[0]?.code).toBe(
      'fabricated-action',
    );
    const renamed = unwrap(
      schemaFromMcpTools({
        tools: [
          {
            name: 'search',
            inputSchema: { type: 'object', properties: { 'search-term': { type: 'string' } } },
          },
        ],
      }),
    );
    const session = createSession(specOf('search() -> Searched\nSearched -> Done', renamed), {
      now: fixedNow,
    });
    const variable = renamed.predicates.get('search')?.variables[0];
    expect(variable?.sourcePath).toEqual(['search-term']);
    expect(
      session.propose({ action: { name: 'search', args: { 'search-term': 'x' } } }).decision,
    ).toBe('allow');
    expect(
      session.propose({
        finish: true,
        answer: 'Action: search\nAction Input: {"search-term": "x"}\nObservation: ok',
      }).decision,
    ).toBe('allow');
  });

  it('a shown date is read as the argument was, with the session clock: "tomorrow" is the call made with it', () => {
    const timed = schemaOf(tool('SetReminder', { day: 'date' }, { success: 'boolean' }));
    const session = () => {
      const made = createSession(specOf('SetReminder() -> Set\nSet -> Done', timed), {
        now: fixedNow,
      });
      made.propose({ action: { name: 'SetReminder', args: { day: 'tomorrow' } } });
      return made;
    };
    const shown = (day: string) =>
      `Done.\nAction: SetReminder\nAction Input: {"day": "${day}"}\nObservation: ok`;
    expect(session().propose({ finish: true, answer: shown('tomorrow') }).decision).toBe('allow');
    expect(session().propose({ finish: true, answer: shown('2025-03-15') }).decision).toBe('allow');
    expect(session().propose({ finish: true, answer: shown('today') }).reasons[0]?.code).toBe(
      'fabricated-action',
    );
  });

  it('a rolled-back call no longer accounts for the answer', () => {
    const session = createSession(spec, { now: fixedNow, rollback: true });
    session.propose({ action: { name: 'GmailSearchContacts', args: { name: 'Alice' } } });
    const commit = session.lastCommit()!;
    session.observe({ updates: { GmailSearchContactsResult: { email: 'alice@x.org' } } });
    expect(session.rollback(commit)).toBe(true);
    const verdict = session.propose({
      finish: true,
      answer: 'Action: GmailSearchContacts\nAction Input: {"name": "Alice"}',
    });
    expect(verdict.reasons.map((reason) => reason.code)).toContain('fabricated-action');
  });
});

describe('Answer(text)', () => {
  const answerSpec = specOf(
    [
      'GmailSearchContacts(name = "Alice") -> Searched',
      'Searched & Answer(text contains "alice@x.org") & not Answer(text contains "password") -> Done',
    ].join('\n'),
    schema,
  );

  function ready() {
    const session = createSession(answerSpec, { now: fixedNow });
    session.propose({ action: { name: 'GmailSearchContacts', args: { name: 'Alice' } } });
    return session;
  }

  it('holds the answer while the finish is checked, so a Done rule can constrain it', () => {
    const session = ready();
    expect(session.status().done).toBe(false);
    const without = session.propose({ finish: true, answer: 'Alice was found.' });
    expect(without).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(without.reasons[0]?.code).toBe('premature-finish');
    expect(without.feedback).toContain('Answer');
    expect(without.reasons[1]).toMatchObject({ predicate: 'Answer', actual: '"Alice was found."' });
    expect(
      session.propose({ finish: true, answer: 'Her password is hunter2; mail alice@x.org' })
        .decision,
    ).toBe('revise');
    expect(session.propose({ finish: true, answer: 'Alice is ALICE@x.org.' }).decision).toBe(
      'allow',
    );
    expect(session.status().finished).toBe(true);
  });

  it('a finish without an answer leaves Answer unobserved', () => {
    expect(ready().propose({ finish: true }).decision).toBe('revise');
  });

  it('cannot be proposed or observed', () => {
    const session = ready();
    const proposed = session.propose({ updates: { Answer: { text: 'alice@x.org' } } });
    expect(proposed.reasons[0]?.code).toBe('invalid-proposal');
    // Observations ignore what the schema does not declare, and say so.
    const observed = session.observe({ updates: { Answer: { text: 'alice@x.org' } } });
    expect(observed.ignored.map((problem) => problem.predicate ?? problem.message)).toHaveLength(1);
    expect(session.propose({ finish: true }).decision).toBe('revise');
  });

  it('a schema that declares its own Answer keeps it', () => {
    const own = schemaOf(...schema.predicates.values(), {
      name: 'Answer',
      kind: 'state',
      description: 'An answer the app shows.',
      variables: [{ name: 'value', type: { kind: 'number' } }],
      keys: [],
      critical: false,
    });
    expect(checkSpec('Answer(value = 42) -> Done', own).ok).toBe(true);
    expect(checkSpec('Answer(text = "x") -> Done', own).ok).toBe(false);
  });
});

describe('proposal fields answer and ask', () => {
  it('ask is always allowed and ends the session as asked, not done', () => {
    const session = createSession(spec, { now: fixedNow });
    const verdict = session.propose({ ask: 'Which Alice do you mean?' });
    expect(verdict.decision).toBe('allow');
    expect(session.status()).toMatchObject({ done: false, finished: true, asked: true });
    const later = session.propose({ action: { name: 'GmailSearchContacts', args: { name: 'x' } } });
    expect(later.decision).toBe('reject');
    expect(later.reasons[0]?.code).toBe('session-finished');
  });

  it('a finished session does not report asked', () => {
    const session = searched();
    expect(session.propose({ finish: true }).decision).toBe('allow');
    expect(session.status().asked).toBeUndefined();
  });

  it.each([
    [{ ask: 'Sure?', action: { name: 'GmailSearchContacts', args: { name: 'A' } } }],
    [{ ask: 'Sure?', finish: true }],
    [{ ask: 42 }],
    [{ answer: 'done' }],
    [{ finish: true, answer: ['not', 'text'] }],
    [{ finish: true, answer: 'x'.repeat(100_001) }],
  ])('refuses a malformed proposal %j as invalid-proposal', (proposal) => {
    const verdict = createSession(spec, { now: fixedNow }).propose(proposal);
    expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(verdict.reasons[0]?.code).toBe('invalid-proposal');
  });
});
