import { readdir } from 'node:fs/promises';
import { type CaseSpec, type EvalCase, givenSpec } from '../../eval/index.js';
import { noLlmUsage } from '../../eval/score.js';
import { CompiledSpecError } from '../../language/compiled-spec-format.js';
import { checkPolicy, type Spec } from '../../language/index.js';
import type { CompiledComposition } from '../../language/read-compiled-composition.js';
import { readInput } from '../inputs.js';
import { CliError, type CliIo } from '../io.js';
import { compiledDocumentOf, readCompiledDocument, secondPolicyError } from '../spec-loading.js';

/**
 * The specs of `intentguard eval … --specs DIR`: spec texts (`.intent`) or compiled
 * documents (`.json`, `intentguard compile`, with or without a policy part), read as
 * every command reads them (spec-loading.ts).
 */

/** The extensions a given spec may have: spec text, or a compiled document. */
const specExtensions = ['.intent', '.json'] as const;

/**
 * The spec files of `--specs DIR` by name without extension (`task-3` → `task-3.json`).
 * A name with both a text and a document is a usage error: which one is evaluated is
 * never a silent choice.
 */
export async function specFiles(directory: string): Promise<Map<string, string>> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new CliError(
      `--specs: cannot read '${directory}': ${code === 'ENOENT' ? 'no such folder' : (error as Error).message}`,
      2,
    );
  }
  const files = new Map<string, string>();
  for (const name of names.sort()) {
    const extension = specExtensions.find((each) => name.endsWith(each));
    if (extension === undefined) continue;
    const stem = name.slice(0, -extension.length);
    const earlier = files.get(stem);
    if (earlier !== undefined)
      throw new CliError(
        `--specs: '${directory}' holds both ${earlier} and ${name}: keep one of them`,
        2,
      );
    files.set(stem, name);
  }
  return files;
}

/** The chosen spec files read, and whether their documents compose a policy. */
export interface GivenSpecs {
  /** Each file's text, by its path. */
  readonly texts: ReadonlyMap<string, string>;
  /** The documents carry their policy (then all of them do, and no `--policy` is given). */
  readonly composed: boolean;
}

/**
 * Reads the chosen spec files before any case runs, so that what makes the whole
 * evaluation wrong is a usage error up front (exit 2): a document that composes its own
 * policy given another `--policy` (as `replay` refuses it), or documents with a policy
 * part mixed with specs without one — one evaluation measures one configuration.
 */
export async function readGivenSpecs(
  io: CliIo,
  paths: readonly string[],
  policyFlag: string | undefined,
): Promise<GivenSpecs> {
  const texts = new Map<string, string>();
  let withPolicy: string | undefined;
  let withoutPolicy: string | undefined;
  for (const path of paths) {
    if (texts.has(path)) continue;
    const text = await readInput(io, path, 'spec');
    texts.set(path, text);
    const document = compiledDocumentOf(text);
    if (document !== undefined && Object.hasOwn(document, 'policy')) {
      if (policyFlag !== undefined) throw secondPolicyError(path, policyFlag);
      withPolicy ??= path;
    } else withoutPolicy ??= path;
  }
  if (withPolicy !== undefined && withoutPolicy !== undefined)
    throw new CliError(
      `--specs: ${withPolicy} composes a policy and ${withoutPolicy} does not: one evaluation measures one configuration — compile every spec with --policy or none`,
      2,
    );
  return { texts, composed: withPolicy !== undefined };
}

/** The operator's `--policy`: its text, and it checked against the evaluation's schema. */
export interface FlagPolicy {
  readonly source: string;
  readonly policy: Spec;
}

/**
 * A case's spec from its file: spec text checked against the case's schema, or a
 * compiled document read over exactly that schema, with its policy part. What does not
 * check or read makes the case `no-spec` (`invalid-spec`, with the line or the JSONPath).
 * With `flagPolicy` (`--policy`), the spec carries it as its policy: a document's, checked
 * against the document's own schema (a session takes a policy over its intent's very
 * schema; the document's was required to be the case's).
 */
export function fileSpec(
  evalCase: EvalCase,
  text: string,
  path: string,
  flagPolicy?: FlagPolicy,
): CaseSpec {
  const document = compiledDocumentOf(text);
  if (document === undefined) {
    if (path.endsWith('.json'))
      return invalidDocument(text, path, '$.format: not a compiled spec (intentguard compile)');
    const given = givenSpec(evalCase, text, 'file', path);
    return given.spec !== undefined && flagPolicy !== undefined
      ? { ...given, policy: flagPolicy.policy }
      : given;
  }
  let read: CompiledComposition;
  try {
    read = readCompiledDocument(document, evalCase.schema);
  } catch (error) {
    if (!CompiledSpecError.isInstance(error)) throw error;
    return invalidDocument(text, path, error.message);
  }
  const { intent } = read;
  let policy = read.policy;
  if (flagPolicy !== undefined) {
    const checked = checkPolicy(flagPolicy.source, intent.schema);
    // Checked against the same declarations already; fail closed all the same.
    if (!checked.ok)
      return invalidDocument(text, path, '$.schema: the policy does not check against it');
    policy = checked.value;
  }
  return {
    source: 'file',
    spec: intent,
    ...(policy !== undefined ? { policy } : {}),
    text: intent.source,
    llm: noLlmUsage,
  };
}

function invalidDocument(text: string, path: string, problem: string): CaseSpec {
  return {
    source: 'file',
    text,
    failure: { code: 'invalid-spec', message: `${path}: ${problem}` },
    llm: noLlmUsage,
  };
}
