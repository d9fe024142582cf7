import { describe, expect, it } from 'vitest';
import { CompiledSpecError } from '../../src/language/compiled-spec-format.js';
import { readCompiledSpec } from '../../src/language/read-compiled-spec.js';
import { compileRegex } from '../../src/language/regex.js';
import { airlineSpec } from '../support/airline.js';
import {
  expectRefused,
  readWithChecks,
  type TranscriptEvent,
  transcript,
  writtenAsJson,
} from '../support/compiled-round-trip.js';

/*
 * Compiled specs (FORMATS.md §8) carry `not (A & B)` and `forall(A => B)` (LANGUAGE.md
 * §9): a scoped spec written, sent as JSON text and read back decides every event as the
 * text does, and a document whose scope was changed into something the checker refuses
 * is refused where it was changed — a compiled scope is never a way around the text.
 */

const forall = `get_user_detailsResult(user_id = $u) & forall(get_user_detailsResult(user_id = $u, reservations = $r) & get_reservation_detailsResult(reservation_id = $r, cabin = business) => cancel_reservationResult(reservation_id = $r, status = "cancelled")) -> Done`;
const scoped = {
  forall,
  'not (A & not (B))': `get_user_detailsResult(user_id = $u) & not (get_user_detailsResult(user_id = $u, reservations = $r) & get_reservation_detailsResult(reservation_id = $r, cabin = business) & not (cancel_reservationResult(reservation_id = $r, status = "cancelled"))) -> Done`,
  'nested three deep': `get_user_detailsResult(user_id = $u) & not (get_user_detailsResult(user_id = $u, reservations = $r) & not (get_reservation_detailsResult(reservation_id = $r, cabin = economy) & not (cancel_reservationResult(reservation_id = $r)))) -> Done`,
  'scoped not with outer and local bindings': `SessionUser(user_id = $u) & cancel_reservation(reservation_id = $r) & not (get_reservation_detailsResult(reservation_id = $r, cabin = business) & get_reservation_detailsResult(reservation_id = $r, insurance = no)) & not (get_user_detailsResult(user_id = $u, reservations = $x) & get_reservation_detailsResult(reservation_id = $x, status = "pending")) -> Cancelled
Cancelled -> Done`,
};

const events: TranscriptEvent[] = [
  { observe: { updates: { SessionUser: { user_id: 'u1' } } } },
  { propose: { action: { name: 'cancel_reservation', args: { reservation_id: 'AAA111' } } } },
  { propose: { finish: true } },
  {
    observe: {
      updates: { get_user_detailsResult: { user_id: 'u1', reservations: ['AAA111', 'BBB222'] } },
    },
  },
  {
    observe: {
      updates: {
        get_reservation_detailsResult: [
          { reservation_id: 'AAA111', cabin: 'business', insurance: 'no', status: 'active' },
          { reservation_id: 'BBB222', cabin: 'economy', insurance: 'yes', status: 'active' },
        ],
      },
    },
  },
  { propose: { action: { name: 'cancel_reservation', args: { reservation_id: 'AAA111' } } } },
  { propose: { action: { name: 'cancel_reservation', args: { reservation_id: 'BBB222' } } } },
  { propose: { finish: true } },
  {
    observe: {
      updates: { cancel_reservationResult: { reservation_id: 'AAA111', status: 'cancelled' } },
    },
  },
  { propose: { finish: true } },
  {
    observe: {
      updates: { cancel_reservationResult: { reservation_id: 'BBB222', status: 'cancelled' } },
    },
  },
  { propose: { finish: true } },
  {
    observe: {
      updates: {
        get_reservation_detailsResult: {
          reservation_id: 'BBB222',
          cabin: 'economy',
          status: 'pending',
        },
      },
    },
  },
  { propose: { action: { name: 'cancel_reservation', args: { reservation_id: 'BBB222' } } } },
];

const now = '2024-05-15T15:00';

describe('compiled specs carry scopes (LANGUAGE.md §9)', () => {
  it.each(Object.entries(scoped))(
    '%s: read back, it decides every event as the text does',
    (_name, text) => {
      const spec = airlineSpec(text);
      expect(spec.rules.some((rule) => rule.scopes !== undefined)).toBe(true);
      const back = readWithChecks(writtenAsJson(spec));
      expect(back.rules.map((rule) => rule.scopes !== undefined)).toEqual(
        spec.rules.map((rule) => rule.scopes !== undefined),
      );
      const expected = transcript(spec, events, now);
      // The scenario exercises both outcomes.
      expect(new Set(expected.map((line) => line.split(' ')[0])).size).toBeGreaterThan(2);
      expect(transcript(back, events, now)).toEqual(expected);
    },
  );

  // biome-ignore lint/suspicious/noExplicitAny: the tests edit the document as plain JSON.
  type Json = any;
  type Document = { rules: { scopes?: Json[] }[] };
  const refused = (change: (document: Document) => void, path: string, problem: RegExp) => {
    const document = writtenAsJson(airlineSpec(forall)) as Document;
    change(document);
    expectRefused(document, path, problem);
  };
  const scope = (document: Document) => document.rules[0]?.scopes?.[0] as Json;

  it('refuses scopes read without the check that comes with their evaluators (a page that did not load them)', () => {
    const document = writtenAsJson(airlineSpec(forall));
    const reading = () => readCompiledSpec(document, { regex: compileRegex });
    expect(reading).toThrow(CompiledSpecError);
    expect(reading).toThrow(/check is not given/);
  });

  it('refuses a forall whose conclusion was taken away (it would hold for nothing to do)', () => {
    refused(
      (document) => {
        scope(document).scopes = [];
      },
      '$.rules[0].scopes[0].scopes',
      /expected scopes/,
    );
    refused(
      (document) => {
        delete scope(document).scopes;
      },
      '$.rules[0].scopes[0].scopes',
      /ends with its conclusion/,
    );
  });

  it('refuses an empty scope, a false universal mark and an action inside a scope', () => {
    refused(
      (document) => {
        const inner = scope(document).scopes[0];
        inner.states = [];
      },
      '$.rules[0].scopes[0].scopes[0]',
      /at least one atom/,
    );
    refused(
      (document) => {
        scope(document).universal = false;
      },
      '$.rules[0].scopes[0].universal',
      /expected true/,
    );
    refused(
      (document) => {
        scope(document).states[1].predicate = 'cancel_reservation';
        scope(document).states[1].constraints = [];
      },
      '$.rules[0].scopes[0].states[1].predicate',
      /never an action/,
    );
  });

  it('refuses a conclusion that binds a variable of its own, and a use nothing binds', () => {
    refused(
      (document) => {
        // The left side's first pattern, binding $z instead of $r, as the conclusion.
        const copy = structuredClone(scope(document).states[0]);
        for (const constraint of copy.constraints)
          if (constraint.binding?.binds) {
            constraint.binding.name = 'z';
            constraint.value.value = '$z';
          }
        scope(document).scopes[0].states = [copy];
      },
      '$.rules[0].scopes[0].scopes[0]',
      /binds \$z/,
    );
    refused(
      (document) => {
        const use = scope(document).states[1].constraints[0];
        use.binding.name = 'nowhere';
        use.value.value = '$nowhere';
      },
      '$.rules[0].scopes[0].states[1].constraints[0].binding.name',
      /nothing before it binds it/,
    );
  });

  it('refuses a field of a scope the format does not know', () => {
    refused(
      (document) => {
        scope(document).exists = true;
      },
      '$.rules[0].scopes[0]',
      /exists/,
    );
  });
});
