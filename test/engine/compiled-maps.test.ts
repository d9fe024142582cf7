import { describe, expect, it } from 'vitest';
import { CompiledSpecError } from '../../src/language/compiled-spec-format.js';
import { readCompiledSpec } from '../../src/language/read-compiled-spec.js';
import { compileRegex } from '../../src/language/regex.js';
import { airlineSpec } from '../support/airline.js';
import { airlineBooking, airlineUserDetails } from '../support/airline-user.js';
import {
  expectRefused,
  readWithChecks,
  type TranscriptEvent,
  transcript,
  writtenAsJson,
} from '../support/compiled-round-trip.js';

/*
 * Compiled specs (FORMATS.md §8) carry `m.*` and `keys(m)` (LANGUAGE.md §9): a spec over
 * τ-bench's payment-method map written, sent as JSON text and read back decides every
 * event as the text does, and a document whose map steps were changed into something the
 * checker refuses is refused where it was changed.
 */

const sophia = airlineUserDetails('sophia_davis_8874');

const text = `
  reject book_reservation(payment_methods[0].payment_id = "gift_card_5896248") because "that card is kept for later"
  @repeat
  get_user_detailsResult(keys(payment_methods) = $pm, sum(payment_methods.*[source = "gift_card"].amount) >= 500) & book_reservation(payment_methods[0].payment_id = $pm) -> Booked
  @repeat
  get_user_detailsResult(payment_methods.*[source = "certificate"].id = $c) & book_reservation(payment_methods[-1].payment_id = $c) -> Booked
  Booked -> Done`;

const booking = (...ids: string[]) =>
  airlineBooking('sophia_davis_8874', ...ids.map((id) => [id, 100] as [string, number]));

const events: TranscriptEvent[] = [
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

const now = '2024-05-15T15:00';

describe('compiled specs carry maps (LANGUAGE.md §9)', () => {
  it('read back, decide every event as the text does', () => {
    const spec = airlineSpec(text);
    const expected = transcript(spec, events, now);
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
    const document = writtenAsJson(spec);
    expect(JSON.stringify(document)).toContain('{"kind":"keys"}');
    expect(JSON.stringify(document)).toContain('{"kind":"values"}');
    expect(transcript(readWithChecks(document), events, now)).toEqual(expected);
    // Written again, the document is the same: nothing is lost in the round trip.
    expect(writtenAsJson(readWithChecks(document))).toEqual(document);
  });

  // biome-ignore lint/suspicious/noExplicitAny: the tests edit the document as plain JSON.
  type Json = any;
  const refused = (change: (document: Json) => void, path: string, problem: RegExp) => {
    const document = writtenAsJson(airlineSpec(text));
    change(document);
    expectRefused(document, path, problem);
  };
  /** The constraint `keys(payment_methods) = $pm` of the first rule. */
  const keysConstraint = (document: Json) => document.rules[0].states[0].constraints[0];
  /** The constraint `sum(payment_methods.*[…].amount) >= 500`. */
  const sumConstraint = (document: Json) => document.rules[0].states[0].constraints[1];

  it('refuses map steps read without the check that comes with their evaluators', () => {
    const reading = () =>
      readCompiledSpec(writtenAsJson(airlineSpec(text)), { regex: compileRegex });
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
