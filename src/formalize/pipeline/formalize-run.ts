import { analyzeComposition, checkSpec, type Diagnostic } from '../../language/index.js';
import { invisibleClass } from '../../support/printable-text.js';
import type { ExperienceOutcome } from '../experience.js';
import type { ChatModel } from '../model/model.js';
import { type Recording, recordingChatModel } from '../model/recording.js';
import { formalize, systemTimeZone } from './formalize.js';
import type { FormalizeOptions, FormalizeResult } from './types.js';

export interface FormalizeRunOptions extends FormalizeOptions {
  /**
   * Receives every model exchange (the encoder's, the checker's, the decoder's),
   * after a `run` header with the instruction, schema, clock, model and settings.
   */
  readonly recording?: Recording;
}

/** A spec to remember in an experience memory, its outcome not known yet. */
export interface NewExperience {
  readonly instruction: string;
  readonly schemaId: string;
  readonly spec: string;
  readonly outcome: ExperienceOutcome;
  readonly model: string;
}

export interface FormalizeRun {
  /** The instruction as formalized (trimmed). */
  readonly instruction: string;
  readonly result: FormalizeResult;
  /**
   * For a result that is ok: the spec as a file — the instruction as `#` comment
   * lines, with several samples the vote, then the canonical spec.
   */
  readonly specFile?: string;
  /** The warnings of `specFile`, their ranges in its lines. */
  readonly warnings: readonly Diagnostic[];
  /** For a result that is ok: what to remember in an experience memory (outcome `pending`). */
  readonly experience?: NewExperience;
}

const invisibleCharacter = new RegExp(`[${invisibleClass}]`, 'gu');

/** `# ` comment lines: the instruction on top of the spec file. */
function commentLines(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(invisibleCharacter, ' ').trimEnd())
    .filter((line) => line.trim() !== '')
    .map((line) => `# ${line}`)
    .join('\n');
}

/**
 * The models of the run, each writing its exchanges to the recording. One wrapper
 * per model, so that a checker that is the encoder stays the same model.
 */
function recordedModels(
  options: FormalizeRunOptions,
  recording: Recording,
): Pick<FormalizeOptions, 'model' | 'checker' | 'decoder'> {
  const wrapped = new Map<ChatModel, ChatModel>();
  const wrap = (model: ChatModel): ChatModel => {
    let recorded = wrapped.get(model);
    if (!recorded) {
      recorded = recordingChatModel(model, recording);
      wrapped.set(model, recorded);
    }
    return recorded;
  };
  return {
    model: wrap(options.model),
    ...(options.checker !== undefined
      ? { checker: options.checker === false ? false : wrap(options.checker) }
      : {}),
    ...(options.decoder !== undefined ? { decoder: wrap(options.decoder) } : {}),
  };
}

/** The spec file of a vote: with several samples, how many gave the spec. */
function specFileOf(
  instruction: string,
  samples: number,
  value: Extract<FormalizeResult, { ok: true }>['value'],
): string {
  // The split counts samples by meaning; failed samples are the rest of `samples`.
  const split = value.specs.map((voted) => voted.votes);
  const failed = samples - split.reduce((sum, votes) => sum + votes, 0);
  const details = [
    ...(split.length > 1 ? [`vote split ${split.join('-')}`] : []),
    ...(failed > 0 ? [`${failed} failed`] : []),
  ];
  const votes =
    samples > 1
      ? `\n# ${split[0] ?? 1} of ${samples} samples gave this spec${details.length > 0 ? ` (${details.join(', ')})` : ''}`
      : '';
  return `${commentLines(instruction)}${votes}\n${value.text}`;
}

/**
 * A formalization as `intentguard formalize` runs it: `formalize`, with every
 * exchange recorded when a recording is given (a replay of it rebuilds the same
 * prompts: the header keeps the date, time and zone), and for a spec the file to
 * print or save and what to remember in an experience memory.
 */
export async function runFormalize(options: FormalizeRunOptions): Promise<FormalizeRun> {
  const instruction = options.instruction.trim();
  const now = options.now ?? new Date().toISOString();
  const timeZone = options.timeZone ?? systemTimeZone();
  const samples = options.samples ?? 1;
  const { recording, ...formalizeOptions } = options;
  if (recording) {
    recording.add({
      type: 'run',
      version: 1,
      instruction,
      schema: options.schema.id,
      now: typeof now === 'string' ? now : now.toISOString(),
      timeZone,
      model: options.model.id,
      options: {
        samples,
        ...(options.rounds !== undefined ? { rounds: options.rounds } : {}),
        semanticCheck: options.checker !== false,
        ...(options.grounding === false ? { groundingCheck: false } : {}),
        ...(options.policy !== undefined ? { policy: true } : {}),
      },
    });
  }
  const result = await formalize({
    ...formalizeOptions,
    ...(recording ? recordedModels(options, recording) : {}),
    now,
    timeZone,
  });
  if (!result.ok) return { instruction, result, warnings: [] };
  const specFile = specFileOf(instruction, samples, result.value);
  // Warnings against the file, so that their lines are the ones the user sees; with a
  // policy, the pair's too (`policy-conflict`).
  const printed =
    options.policy === undefined
      ? checkSpec(specFile, options.schema)
      : { diagnostics: analyzeComposition(specFile, options.policy, options.schema).intent };
  return {
    instruction,
    result,
    specFile,
    warnings: printed.diagnostics.filter((diagnostic) => diagnostic.severity === 'warning'),
    experience: {
      instruction,
      schemaId: options.schema.id,
      spec: result.value.text,
      outcome: 'pending',
      model: options.model.id,
    },
  };
}
