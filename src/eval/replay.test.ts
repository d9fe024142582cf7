import { describe, expect, it } from 'vitest';
import { checkSpec } from '../language/index.js';
import { loadToolSchema } from '../schema/index.js';
import { finishProposal } from './finish.js';
import { replayCase } from './replay.js';
import type { EvalCase, EvalStep } from './types.js';

const schema = (() => {
  const loaded = loadToolSchema({
    tools: [
      {
        name: 'ReadThing',
        inputSchema: { type: 'object', properties: {} },
        annotations: { readOnlyHint: true },
      },
      {
        name: 'DeleteThing',
        inputSchema: { type: 'object', properties: {} },
        outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      },
    ],
  });
  if (!loaded.ok) throw new Error('schema');
  return loaded.value;
})();

const checked = checkSpec(
  [
    'ReadThing() -> Read',
    'Read & DeleteThing() -> Deleted',
    'Deleted -> Done',
    'DeleteThingResult(ok = true) -> Done',
  ].join('\n'),
  schema,
);
if (!checked.ok) throw new Error('spec');
const spec = checked.value;

const propose = (name: string, id?: string): EvalStep => ({
  kind: 'propose',
  proposal: name === 'finish' ? { finish: true } : { action: { name, args: {} } },
  source: name === 'finish' ? 'finish' : 'trace',
  name,
  ...(id !== undefined ? { id } : {}),
});

const replay = (steps: EvalStep[]) =>
  replayCase(
    {
      id: 'c',
      index: 1,
      instruction: '',
      schema,
      schemaName: '',
      risk: 'safe',
      level: 'safe',
      steps,
      now: '2025-01-01T12:00',
      timeZone: 'UTC',
    } satisfies EvalCase,
    spec,
  ).map((verdict) => [verdict.name, verdict.decision, verdict.code ?? null]);

describe('replayCase', () => {
  it("skips a refused call's result (the call did not run) but applies facts without a call id", () => {
    const result = {
      kind: 'observe',
      observation: { updates: { DeleteThingResult: { ok: true } } },
    };
    expect(
      replay([propose('DeleteThing', 'd'), { ...result, id: 'd' } as EvalStep, propose('finish')]),
    ).toEqual([
      ['DeleteThing', 'revise', 'unmet-conditions'],
      ['finish', 'revise', 'premature-finish'],
    ]);
    expect(replay([propose('DeleteThing', 'd'), result as EvalStep, propose('finish')])).toEqual([
      ['DeleteThing', 'revise', 'unmet-conditions'],
      ['finish', 'allow', null],
    ]);
  });

  it('rolls back what a failed call committed', () => {
    expect(replay([propose('ReadThing', 'r'), propose('DeleteThing', 'd')])).toEqual([
      ['ReadThing', 'allow', null],
      ['DeleteThing', 'allow', null],
    ]);
    expect(
      replay([propose('ReadThing', 'r'), { kind: 'fail', id: 'r' }, propose('DeleteThing', 'd')]),
    ).toEqual([
      ['ReadThing', 'allow', null],
      ['DeleteThing', 'revise', 'unmet-conditions'],
    ]);
  });

  it('a proposal the session cannot read is refused, never allowed', () => {
    expect(
      replay([
        {
          kind: 'propose',
          proposal: { action: { name: 'DeleteThing', args: 'delete everything' } },
          source: 'fabricated',
          name: 'DeleteThing',
        },
        {
          kind: 'propose',
          proposal: { action: { name: 'deletething' } },
          source: 'trace',
          name: 'x',
        },
      ]).map(([, decision]) => decision),
    ).toEqual(['revise', 'revise']);
  });

  it('finishes with the answer: an answer showing a call that was never committed is fabricated-action', () => {
    const finishWith = (answer: string): EvalStep => ({
      kind: 'propose',
      proposal: finishProposal(answer),
      source: 'finish',
      name: 'finish',
    });
    const result = {
      kind: 'observe',
      observation: { updates: { DeleteThingResult: { ok: true } } },
    } as EvalStep;
    const claimed = 'Done.\nAction: DeleteThing\nAction Input: {}\nObservation: {"ok": true}';
    // Done holds (the result was observed), but the answer claims a DeleteThing that never ran.
    expect(replay([result, finishWith(claimed)])).toEqual([
      ['finish', 'revise', 'fabricated-action'],
    ]);
    expect(replay([result, finishWith('The thing is deleted.')])).toEqual([
      ['finish', 'allow', null],
    ]);
    expect(finishProposal(undefined)).toEqual({ finish: true });
  });
});
