import { describe, expect, it } from 'vitest';
import { finalAnswer } from './messages.js';

describe('finalAnswer: the text the guard checks at finish', () => {
  it('is the last AI message, as a string or as its text blocks', () => {
    expect(
      finalAnswer([
        { type: 'human', content: 'Pay Alice' },
        { type: 'ai', content: 'Action: BankTransfer' },
        { type: 'tool', content: 'ok' },
        { type: 'ai', content: 'Paid.' },
      ]),
    ).toBe('Paid.');
    expect(
      finalAnswer([
        {
          type: 'ai',
          content: [
            { type: 'text', text: 'Action: BankTransfer' },
            { type: 'image_url', image_url: 'x' },
            { type: 'text', text: 'Action Input: {}' },
          ],
        },
      ]),
    ).toBe('Action: BankTransfer\nAction Input: {}');
  });

  it('is undefined without an AI message or its text', () => {
    expect(finalAnswer([{ type: 'human', content: 'hi' }])).toBeUndefined();
    expect(finalAnswer([{ type: 'ai', content: '' }])).toBeUndefined();
    expect(finalAnswer([{ type: 'ai', content: [{ type: 'image_url' }] }])).toBeUndefined();
    expect(finalAnswer('not a list')).toBeUndefined();
  });
});
