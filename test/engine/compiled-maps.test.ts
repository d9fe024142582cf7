import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/engine/index.js';
import { compiledPathChecks as pathCheck } from '../../src/language/check-compiled-paths.js';
import { CompiledSpecError } from '../../src/language/compiled-spec-format.js';
import { checkSpec, type Spec } from '../../src/language/index.js';
import { readCompiledSpec } from '../../src/language/read-compiled-spec.js';
import { compileRegex } from '../../src/language/regex.js';
import { writeCompiledSpec } from '../../src/language/write-compiled-spec.js';
import { airlineSchema } from '../support/airline-session.js';
import { readData } from '../support/project-data.js';

/*
 * Compiled specs (FORMATS.md §8) carry `m.*` and `keys(m)` (LANGUAGE.md §9): a spec over
 * τ-bench's payment-method map written, sent as JSON text and read back decides every
 * event as the text does, and a document whose map steps were changed into something the
 * checker refuses is refused where it was changed.
 */

const users = JSON.parse(readData('taubench/airline/db/users.json')) as Record<string, object>;
const sophia = { user_id: 'sophia_davis_8874', ...users.sophia_davis_8874 };

const text = `
  reject book_reservation(payment_methods[0].payment_id = "gift_card_5896248") because "that card is kept for later"
  @repeat
  get_user_detailsResult(keys(payment_methods) = $pm, sum(payment_methods.*[source = "gift_card"].amount) >= 500) & book_reservation(payment_methods[0].payment_id = $pm) -> Booked
  @repeat
  get_user_detailsResult(payment_methods.*[source = "certificate"].id = $c) & book_reservation(payment_methods[-1].payment_id = $c) -> Booked
  Booked -> Done`;

const booking = (...ids: string[]) => ({
  action: {
    name: 'book_reservation',
    args: {
      user_id: 'sophia_davis_8874',
      origin: 'SFO',
      destination: 'JFK',
      flight_type: 'one_way',
      cabin: 'economy',
      flights: [{ flight_number: 'HAT001', date: '2024-05-20' }],
      passengers: [{ first_name: 'Sophia', last_name: 'Davis', dob: '1990-04-05' }],
      payment_methods: ids.map((payment_id) => ({ payment_id, amount: 100 })),
      total_baggages: 0,
      nonfree_baggages: 0,
      insurance: 'no',
    },
  },
});

const events: Record<string, unknown>[] = [
  { propose: booking('credit_card_4801844') },
  { observe: { updates: { get_user_detailsResult: sophia } } },
  { propose: booking('credit_card_4801844') },
  { propose: booking('credit_card_7815826') },
  { propose: booking('gift_card_5896248') },
  { propose: booking('credit_card_7815826', 'certificate_9507611') },
  // Fewer gift cards: the first rule no longer holds, the second still does.
  {
    observe: {
      updates: {
        get_user_detailsResult: {
          ...sophia,
          payment_methods: {
            gift_card_1: { source: 'gift_card', amount: 10, id: 'gift_card_1' },
            certificate_2: { source: 'certificate', amount: 500, id: 'certificate_2' },
          },
        },
      },
    },
  },
  { propose: booking('gift_card_1') },
  { propose: booking('gift_card_1', 'certificate_2') },
];

function checked(source: string): Spec {
  const result = checkSpec(source, airlineSchema);
  if (!result.ok) throw new Error(result.diagnostics.map((item) => item.message).join('\n'));
  return result.value;
}

const written = (spec: Spec) => JSON.parse(JSON.stringify(writeCompiledSpec(spec)));
const read = (document: unknown) => readCompiledSpec(document, { regex: compileRegex, pathCheck });

function transcript(spec: Spec): string[] {
  const session = createSession(spec, { now: '2024-05-15T15:00' });
  return events.map((event) => {
    if ('observe' in event)
      return `observed ${session.observe(event.observe as Parameters<typeof session.observe>[0]).ok}`;
    const verdict = session.propose(event.propose as Parameters<typeof session.propose>[0]);
    return `${verdict.decision} ${verdict.feedback ?? ''}`;
  });
}

describe('compiled specs carry maps (LANGUAGE.md §9)', () => {
  it('read back, decide every event as the text does', () => {
    const spec = checked(text);
    const expected = transcript(spec);
    expect(expected.map((line) => line.split(' ')[0])).toEqual([
      'revise',
      'observed',
      'allow',
      'revise',
      'reject',
      'allow',
      'observed',
      'revise',
      'allow',
    ]);
    const document = written(spec);
    expect(JSON.stringify(document)).toContain('{"kind":"keys"}');
    expect(JSON.stringify(document)).toContain('{"kind":"values"}');
    expect(transcript(read(document))).toEqual(expected);
    // Written again, the document is the same: nothing is lost in the round trip.
    expect(written(read(document))).toEqual(document);
  });

  // biome-ignore lint/suspicious/noExplicitAny: the tests edit the document as plain JSON.
  type Json = any;
  const refused = (change: (document: Json) => void, path: string, problem: RegExp) => {
    const document = written(checked(text));
    change(document);
    const reading = () => read(document);
    expect(reading).toThrow(CompiledSpecError);
    try {
      reading();
    } catch (error) {
      expect((error as CompiledSpecError).path).toBe(path);
      expect((error as Error).message).toMatch(problem);
    }
  };
  /** The constraint `keys(payment_methods) = $pm` of the first rule. */
  const keysConstraint = (document: Json) => document.rules[0].states[0].constraints[0];
  /** The constraint `sum(payment_methods.*[…].amount) >= 500`. */
  const sumConstraint = (document: Json) => document.rules[0].states[0].constraints[1];

  it('refuses map steps read without the check that comes with their evaluators', () => {
    const reading = () => readCompiledSpec(written(checked(text)), { regex: compileRegex });
    expect(reading).toThrow(CompiledSpecError);
    expect(reading).toThrow(/check is not given/);
  });

  it('refuses a map step on a value that is not a json object', () => {
    // keys(keys(m)): the keys are a list of texts, no map.
    refused(
      (document) => {
        keysConstraint(document).access.steps.push({ kind: 'keys' });
      },
      '$.rules[0].states[0].constraints[0].access.steps[1]',
      /not a json object/,
    );
    // .* after the projection of amounts (a list).
    refused(
      (document) => {
        sumConstraint(document).access.steps.push({ kind: 'values' });
      },
      '$.rules[0].states[0].constraints[1].access.steps[3]',
      /not a json object/,
    );
    // keys() of the user's email (text) instead of the payment methods.
    refused(
      (document) => {
        const variables = document.schema.predicates.find(
          (predicate: Json) => predicate.name === 'get_user_detailsResult',
        ).variables;
        keysConstraint(document).variable[1] = variables.findIndex(
          (variable: Json) => variable.name === 'email',
        );
      },
      '$.rules[0].states[0].constraints[0].access.steps[0]',
      /not a json object/,
    );
  });

  it('refuses a map step with a field the format does not know, and an unknown step', () => {
    refused(
      (document) => {
        keysConstraint(document).access.steps[0].position = 0;
      },
      '$.rules[0].states[0].constraints[0].access.steps[0]',
      /position/,
    );
    refused(
      (document) => {
        sumConstraint(document).access.steps[0].kind = 'entries';
      },
      '$.rules[0].states[0].constraints[1].access.steps[0].kind',
      /entries|expected/,
    );
  });
});
