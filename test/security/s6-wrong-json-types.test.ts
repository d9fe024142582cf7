import { describe, expect, it } from 'vitest';
import { loadToolSchema, type Schema, type Verdict } from '../../src/index.js';
import { sessionFor } from './support.js';

/**
 * S6: a value of the wrong JSON type for its variable is `invalid-proposal` (FORMATS.md
 * §2): an array or object for a text argument is not read as its JSON text (which no
 * guard on the address names), and a bare string for a list is not wrapped as one
 * element (a comma-joined string would hide an address from a guard on elements).
 */
const mailTools = JSON.stringify({
  tools: [
    {
      name: 'GmailSendEmail',
      description: 'Sends an email.',
      inputSchema: {
        type: 'object',
        properties: {
          to: { type: 'string' },
          subject: { type: 'string' },
          cc: { type: 'array', items: { type: 'string' } },
          headers: { type: 'object' },
        },
        required: ['to'],
      },
      outputSchema: {
        type: 'object',
        properties: { id: { type: 'string' }, sent: { type: 'boolean' } },
      },
      annotations: { destructiveHint: true },
    },
  ],
});

function mailSchema(): Schema {
  const loaded = loadToolSchema(mailTools);
  if (!loaded.ok) throw new Error('the tools do not load');
  return loaded.value;
}

const guardedSpec = `reject GmailSendEmail(to = "evil@x.com") because "never write to evil"
reject GmailSendEmail(to matches /@evil\\.com$/)
reject GmailSendEmail(cc contains "evil@x.com")
GmailSendEmail() -> Sent
Sent -> Done
`;

function send(args: Record<string, unknown>): Verdict {
  return sessionFor(guardedSpec, mailSchema()).propose({
    action: { name: 'GmailSendEmail', args },
  });
}

function expectInvalid(verdict: Verdict, message: string): void {
  expect(verdict).toMatchObject({ decision: 'revise', severity: 'hard' });
  expect(verdict.reasons[0]).toMatchObject({
    code: 'invalid-proposal',
    variable: expect.any(String),
  });
  expect(verdict.feedback).toContain(message);
}

describe('S6: a text argument takes text', () => {
  it("refuses the review's array and object spellings of a denied address", () => {
    expectInvalid(send({ to: ['evil@x.com'] }), 'GmailSendEmail.to: a list is not text');
    expectInvalid(
      send({ to: { address: 'evil@x.com' } }),
      'GmailSendEmail.to: an object is not text',
    );
    expectInvalid(send({ to: ['bob@evil.com'] }), 'GmailSendEmail.to: a list is not text');
    expectInvalid(send({ to: true }), 'GmailSendEmail.to: true is not text');
  });

  it('still decides the plain spellings: the guard fires, others pass', () => {
    expect(send({ to: 'evil@x.com' })).toMatchObject({ decision: 'reject' });
    expect(send({ to: 'bob@evil.com' })).toMatchObject({ decision: 'reject' });
    expect(send({ to: 'alice@corp.com' }).decision).toBe('allow');
    // A number is read as its decimal text, which is what the tool is sent.
    expect(send({ to: 42 }).decision).toBe('allow');
  });

  it('reads an object as its JSON text only where the schema says the tool takes any JSON', () => {
    expect(send({ to: 'alice@corp.com', headers: { 'X-Tag': 'a' } }).decision).toBe('allow');
  });
});

describe('S6: a list argument takes an array', () => {
  it("refuses the review's comma-joined string for cc instead of taking it as one element", () => {
    expectInvalid(
      send({ to: 'alice@corp.com', cc: 'boss@corp.com, evil@x.com' }),
      'GmailSendEmail.cc: "boss@corp.com, evil@x.com" is not a list',
    );
  });

  it('fires the element guard on the array spelling, and refuses objects as elements', () => {
    expect(send({ to: 'alice@corp.com', cc: ['boss@corp.com', 'evil@x.com'] })).toMatchObject({
      decision: 'reject',
      reasons: [{ code: 'guard-reject' }],
    });
    expectInvalid(
      send({ to: 'alice@corp.com', cc: [{ address: 'evil@x.com' }] }),
      'an element of the list: an object is not text',
    );
    expect(send({ to: 'alice@corp.com', cc: ['boss@corp.com'] }).decision).toBe('allow');
  });
});

describe('S6: tool results are strict about the fields they declare', () => {
  it('fails an observation whose known field has the wrong type, and ignores unknown ones', () => {
    const session = sessionFor(guardedSpec, mailSchema());
    const wrong = session.observe({ updates: { GmailSendEmailResult: { id: ['x'], sent: true } } });
    expect(wrong.ok).toBe(false);
    expect(wrong.problems[0]?.message).toBe(
      'GmailSendEmailResult.id: a list is not text (give a string)',
    );
    const extra = session.observe({
      updates: { GmailSendEmailResult: { id: 'x', sent: true, thread: { n: 1 } } },
    });
    expect(extra.ok).toBe(true);
    expect(extra.ignored.map((problem) => problem.message)).toEqual([
      "GmailSendEmailResult has no variable 'thread'",
    ]);
  });
});
