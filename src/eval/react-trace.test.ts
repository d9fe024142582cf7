import { describe, expect, it } from 'vitest';
import { maxReactCalls, parseReactCalls } from './react-trace.js';

describe('parseReactCalls', () => {
  it('reads the calls an agent wrote into its final answer, with their inputs and claimed observations', () => {
    const log = [
      'I will now look at the history.',
      '',
      'Action: AugustSmartLockViewAccessHistory  ',
      'Action Input: {"start_time": "2022-02-15 00:00", "end_time": "2022-02-22 00:00"} ',
      '',
      'Observation: {"access_history": [{"guest_name": "Alice"}]} ',
      'Thought: now the email.',
      '',
      'Action: GmailSendEmail',
      'Action Input: {',
      '  "to": "jason@example.com",',
      '  "body": "Hi Jason,\\n} not the end {\\"quoted\\" braces"',
      '}',
      '',
      'Final Answer: Done. Action: NotACall',
      'Action Input: {}',
    ].join('\n');
    expect(parseReactCalls(log)).toEqual([
      {
        tool: 'AugustSmartLockViewAccessHistory',
        input: { start_time: '2022-02-15 00:00', end_time: '2022-02-22 00:00' },
        observation: '{"access_history": [{"guest_name": "Alice"}]}',
      },
      {
        tool: 'GmailSendEmail',
        input: { to: 'jason@example.com', body: 'Hi Jason,\n} not the end {"quoted" braces' },
      },
    ]);
  });

  it('keeps an input that is not JSON as text (the guard then refuses it as invalid), and no input as {}', () => {
    expect(parseReactCalls('Action: Foo\nAction Input: to Alice, $5\nAction: `Bar`\n')).toEqual([
      { tool: 'Foo', input: 'to Alice, $5' },
      { tool: 'Bar', input: {} },
    ]);
    // An input that never closes is kept as its line.
    expect(parseReactCalls('Action: Foo\nAction Input: {"a": 1\n')).toEqual([
      { tool: 'Foo', input: '{"a": 1' },
    ]);
  });

  it('reads nothing from text without calls, and a bounded number from a flood', () => {
    expect(parseReactCalls('Final Answer: all done')).toEqual([]);
    const flood = 'Action: T\nAction Input: {}\n'.repeat(maxReactCalls * 3);
    expect(parseReactCalls(flood)).toHaveLength(maxReactCalls);
  });
});
