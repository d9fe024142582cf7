import { describe, expect, it } from 'vitest';
import { replayChecked } from './r2-review-tools.js';

/**
 * E6: `absent(cc)` never held for an optional list argument: the engine read a list that
 * is not given as the empty list before `absent` looked, so `reject SendMail(absent(cc))`
 * let a mail without cc through, and a rule with `absent(cc)` refused it. An absent (or
 * `null`) optional list argument is still the empty list to every other operator
 * (LANGUAGE.md §5.1); `absent` sees whether it was given, and a `[]` the agent gives is
 * given (docs/language.md).
 */
const mail = (cc?: unknown) => ({
  action: {
    name: 'SendMail',
    args: {
      to: 'team@corp.example',
      ...(cc === undefined ? {} : { cc }),
      subject: 'Minutes',
      body: 'See below.',
    },
  },
});
const rejected = { decision: 'reject', code: 'guard-reject' };

describe('E6: absent(list argument)', () => {
  it('the review: a guard refuses a mail without cc, or with cc null, and allows one with cc', async () => {
    const spec = `reject SendMail(absent(cc)) because "the manager must be in copy"
@repeat
SendMail(to = "team@corp.example") -> Sent
Sent -> Done
`;
    const verdicts = await replayChecked(spec, [
      { propose: mail(), expect: rejected },
      { propose: mail(null), expect: rejected },
      { propose: mail(['manager@corp.example']), expect: 'allow' },
      // [] is given: the guard does not fire.
      { propose: mail([]), expect: 'allow' },
    ]);
    expect(verdicts[0]).toMatchObject({
      reasons: [
        {
          expected: 'absent(cc)',
          message: 'The spec refuses SendMail without cc: the manager must be in copy.',
        },
      ],
    });
  });

  it('a rule with absent(cc) allows a mail without cc and refuses one with cc, even []', async () => {
    const spec = `@repeat
SendMail(to = "team@corp.example", absent(cc)) -> Sent
Sent -> Done
`;
    const verdicts = await replayChecked(spec, [
      { propose: mail(['bob@corp.example']), expect: { decision: 'revise', severity: 'hard' } },
      { propose: mail([]), expect: { decision: 'revise', severity: 'hard' } },
      { propose: mail(), expect: 'allow' },
      { propose: mail(null), expect: 'allow' },
    ]);
    expect(verdicts[0]).toMatchObject({ reasons: [{ code: 'unmet-conditions' }] });
  });

  it('other operators still read an absent list as the empty list', async () => {
    const spec = `reject SendMail(cc not contains "manager@corp.example") because "the manager must be in copy"
@repeat
SendMail(to = "team@corp.example", cc = []) -> Sent
@repeat
SendMail(to = "team@corp.example", cc contains "manager@corp.example") -> Sent
Sent -> Done
`;
    await replayChecked(spec, [
      { propose: mail(), expect: rejected },
      { propose: mail(null), expect: rejected },
      { propose: mail(['manager@corp.example']), expect: 'allow' },
    ]);
    await replayChecked('SendMail(to = "team@corp.example", cc = []) -> Sent\nSent -> Done\n', [
      { propose: mail(), expect: 'allow' },
    ]);
  });
});
