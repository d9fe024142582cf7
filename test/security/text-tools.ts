import { loadToolSchema, type Schema, type Verdict } from '../../src/index.js';
import { sessionFor } from './support.js';

/**
 * The tools of the review's text reproductions (S3, S5, S7, S8, S9, S13), as an MCP
 * host lists them: `GmailSendEmail` (`cc` optional) and `SendMoney` (`from_account`
 * optional).
 */
const tools = JSON.stringify({
  tools: [
    {
      name: 'GmailSendEmail',
      description: 'Sends an email.',
      inputSchema: {
        type: 'object',
        properties: {
          to: { type: 'string' },
          subject: { type: 'string' },
          body: { type: 'string' },
          cc: { type: 'array', items: { type: 'string' } },
        },
        required: ['to', 'body'],
      },
      annotations: { destructiveHint: true },
    },
    {
      name: 'SendMoney',
      description: 'Sends money from one of the user accounts.',
      inputSchema: {
        type: 'object',
        properties: {
          to: { type: 'string' },
          amount: { type: 'number' },
          from_account: { type: 'string' },
          memo: { type: 'string' },
        },
        required: ['to', 'amount'],
      },
      annotations: { destructiveHint: true },
    },
  ],
});

export function textToolSchema(): Schema {
  const loaded = loadToolSchema(tools);
  if (!loaded.ok) throw new Error('the text tools do not load');
  return loaded.value;
}

/** A spec that plans every call of both tools, plus the given guards and rules. */
export function guardedSpec(...lines: readonly string[]): string {
  return [
    ...lines,
    'GmailSendEmail() -> Mailed',
    'SendMoney() -> Paid',
    'Mailed -> Done',
    'Paid -> Done',
  ].join('\n');
}

export function sendEmail(spec: string, args: Record<string, unknown>): Verdict {
  return sessionFor(spec, textToolSchema()).propose({
    action: { name: 'GmailSendEmail', args: { body: 'Hello', ...args } },
  });
}

export function sendMoney(spec: string, args: Record<string, unknown>): Verdict {
  return sessionFor(spec, textToolSchema()).propose({
    action: { name: 'SendMoney', args: { amount: 10, ...args } },
  });
}
