import { type Diagnostic, renderDiagnostics, type Schema } from '../../language/index.js';
import { renderSignatures } from '../signatures.js';

/** Diagnostics shown to the model per round; the rest are counted. */
export const maxDiagnosticsInPrompt = 20;

/**
 * Predicates the diagnostics point at (unknown names with "did you mean" hints,
 * variables of a predicate) that the first prompt did not show: their signatures
 * help the model repair without guessing.
 */
export function predicatesMentioned(
  diagnostics: readonly Diagnostic[],
  schema: Schema,
  shown: ReadonlySet<string>,
): string[] {
  const names = new Set<string>();
  for (const diagnostic of diagnostics) {
    const text = `${diagnostic.message} ${diagnostic.hint ?? ''} ${Object.values(diagnostic.data).join(' ')}`;
    for (const word of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
      if (!shown.has(word) && schema.predicates.has(word)) names.add(word);
    }
  }
  return [...names].slice(0, 10);
}

/**
 * The message that sends the checker's diagnostics back to the model after its
 * previous reply (which precedes it in the conversation): the errors rendered plain
 * with excerpts of that reply, and signatures of predicates they mention.
 */
export function repairPrompt(input: {
  readonly reply: string;
  readonly diagnostics: readonly Diagnostic[];
  readonly schema: Schema;
  readonly shown: ReadonlySet<string>;
}): string {
  const errors = input.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  const shownErrors = errors.slice(0, maxDiagnosticsInPrompt);
  const rendered = renderDiagnostics(shownErrors, input.reply, {
    fileName: 'your reply',
    color: false,
  });
  const more =
    errors.length > shownErrors.length
      ? `\n(and ${errors.length - shownErrors.length} more errors)`
      : '';
  const parts = [
    `The spec in your reply has ${errors.length === 1 ? 'an error' : `${errors.length} errors`}:\n\n${rendered}${more}`,
  ];
  const extra = predicatesMentioned(shownErrors, input.schema, input.shown);
  if (extra.length > 0)
    parts.push(
      `Signatures of predicates mentioned above:\n${renderSignatures(input.schema, extra)}`,
    );
  parts.push(
    'Fix every error, keep what was right, and reply with the whole corrected spec in one ```intent code block.',
  );
  return parts.join('\n\n');
}

/** A discrepancy the checker found between the instruction and the spec's reading. */
export interface Discrepancy {
  readonly issue: string;
  readonly fix?: string;
}

/** The message that sends the checker's disagreement back to the encoder. */
export function revisionPrompt(input: {
  readonly reading: string;
  readonly discrepancies: readonly Discrepancy[];
}): string {
  const items = input.discrepancies.map(
    (discrepancy) =>
      `- ${discrepancy.issue}${discrepancy.fix ? ` (suggested fix: ${discrepancy.fix})` : ''}`,
  );
  return [
    'A reviewer read your spec back in plain language and compared it with the instruction. The reading was:',
    `<reading>\n${input.reading}\n</reading>`,
    `The reviewer found these discrepancies:\n${items.length > 0 ? items.join('\n') : '- (none given: the reading does not match the instruction)'}`,
    'Revise the spec so that it says what the instruction says, keep what was right, and reply with the whole spec in one ```intent code block.',
  ].join('\n\n');
}
