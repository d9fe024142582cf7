import { compiledPathChecks } from '../language/check-compiled-paths.js';
import { requireCompiledFromSource } from '../language/compiled-source.js';
import { CompiledSpecError, compiledSpecFormat } from '../language/compiled-spec-format.js';
import {
  checkPolicy,
  checkSpec,
  renderDiagnostics,
  type Schema,
  type Spec,
} from '../language/index.js';
import {
  type CompiledComposition,
  readCompiledComposition,
} from '../language/read-compiled-composition.js';
import { compileRegex } from '../language/regex.js';
import { isRecord } from '../support/is-record.js';
import {
  assertOneStandardInput,
  displayName,
  type LoadedSchema,
  loadSchemaOption,
  readInput,
  type SchemaOptions,
} from './inputs.js';
import { CliError, type CliIo } from './io.js';

export interface LoadedSpec {
  readonly spec: Spec;
  /** The operator's policy (`--policy`, LANGUAGE.md §8), checked against the same schema. */
  readonly policy?: Spec;
  readonly schema: LoadedSchema;
  readonly fileName: string;
}

/**
 * Loads a spec and its schema and checks it. A spec with errors ends the command
 * with exit 1 after printing the diagnostics: nothing is ever run on an unchecked spec.
 * With `compiled`, SPEC may also be a compiled document (`intentguard compile`): it is
 * read and tied to its sources as `createGuard(document)` does, its schema must be the
 * one given (if any), and a composition brings its policy — another `--policy` is a
 * usage error, never a silent choice.
 */
export async function loadCheckedSpec(
  io: CliIo,
  specPath: string,
  options: SchemaOptions & { readonly policy?: string },
  compiled = false,
): Promise<LoadedSpec> {
  assertOneStandardInput({
    SPEC: specPath,
    '--policy': options.policy,
    '--states': options.states,
    '--tools': options.tools,
  });
  const source = await readInput(io, specPath, 'spec');
  const fileName = displayName(specPath);
  const document = compiled ? compiledDocumentOf(source) : undefined;
  if (document !== undefined) return loadCompiled(io, document, fileName, options);
  const schema = await loadSchemaOption(io, options, true);
  if (!schema) throw new CliError('a schema is required: give --states FILE or --tools FILE', 2);
  const result = checkSpec(source, schema.schema);
  if (!result.ok) {
    io.stderr(
      `${renderDiagnostics(result.diagnostics, source, { fileName, color: io.stderrIsTerminal })}\n`,
    );
    throw new CliError(`the spec '${fileName}' has errors; run 'intentguard check' for details`, 1);
  }
  if (options.policy === undefined) return { spec: result.value, schema, fileName };
  const { policy } = await loadCheckedPolicy(io, options.policy, schema.schema, fileName);
  return { spec: result.value, policy, schema, fileName };
}

/**
 * The JSON of a compiled document (`intentguard compile`; its `format` says so); undefined
 * for spec text. Every command that takes SPEC tells the two apart by this, one way.
 */
export function compiledDocumentOf(source: string): Record<string, unknown> | undefined {
  if (!source.trimStart().startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    // Not JSON: spec text, whose parser says what is wrong with it.
    return undefined;
  }
  return isRecord(value) && value.format === compiledSpecFormat ? value : undefined;
}

/**
 * Reads a compiled document as `createGuard(document)` does: checked as data, tied to its
 * sources (a document that is not exactly what its sources compile to is refused), and,
 * with `schema`, over exactly that schema. Throws `CompiledSpecError` at the JSONPath of
 * the first thing wrong.
 *
 * @example
 * const { intent, policy } = readCompiledDocument(compiledDocumentOf(text)!, schema);
 */
export function readCompiledDocument(
  document: Record<string, unknown>,
  schema?: Schema,
): CompiledComposition {
  const read = readCompiledComposition(document, {
    regex: compileRegex,
    pathCheck: compiledPathChecks,
    ...(schema ? { schema } : {}),
  });
  requireCompiledFromSource(document, read.intent, read.policy);
  return read;
}

/**
 * The usage error of a compiled composition given another `--policy`: the document
 * already says which policy judges with its intent, so a second one is never a silent
 * choice.
 */
export function secondPolicyError(documentName: string, policyPath: string): CliError {
  return new CliError(
    `${documentName} composes its own policy; --policy ${displayName(policyPath)} would be a second one — give one or the other`,
    2,
  );
}

/** A compiled document opened for a command: its parts and the schema they are over. */
export interface OpenedDocument extends CompiledComposition {
  /** `--states`/`--tools` when given (the document's must be the same), else the document's. */
  readonly schema: LoadedSchema;
}

/**
 * Opens a compiled document named on the command line: a document that does not read
 * ends the command with exit 1 and the JSONPath of what is wrong (as a spec with errors
 * does), a composition given another `--policy` with exit 2. The `--policy` file itself
 * is the caller's to read: `check` reports its diagnostics, the others refuse it.
 */
export async function openCompiledDocument(
  io: CliIo,
  document: Record<string, unknown>,
  fileName: string,
  options: SchemaOptions & { readonly policy?: string },
): Promise<OpenedDocument> {
  const given = await loadSchemaOption(io, options, false);
  let read: CompiledComposition;
  try {
    read = readCompiledDocument(document, given?.schema);
  } catch (error) {
    if (CompiledSpecError.isInstance(error)) throw new CliError(`${fileName}: ${error.message}`, 1);
    throw error;
  }
  if (read.policy !== undefined && options.policy !== undefined)
    throw secondPolicyError(fileName, options.policy);
  const schema: LoadedSchema = given ?? {
    schema: read.intent.schema,
    path: fileName,
    warnings: [],
  };
  return { ...read, schema };
}

async function loadCompiled(
  io: CliIo,
  document: Record<string, unknown>,
  fileName: string,
  options: SchemaOptions & { readonly policy?: string },
): Promise<LoadedSpec> {
  const {
    intent,
    policy: composed,
    schema,
  } = await openCompiledDocument(io, document, fileName, options);
  const policy =
    composed ??
    (options.policy === undefined
      ? undefined
      : (await loadCheckedPolicy(io, options.policy, intent.schema, fileName)).policy);
  return { spec: intent, ...(policy ? { policy } : {}), schema, fileName };
}

/**
 * Loads `--policy FILE` and checks it against the schema (`checkPolicy`). Fail closed: a
 * policy that does not check runs nothing (LANGUAGE.md §8) — its diagnostics are
 * printed and the command ends with exit 1. `specName` is the intent it composes with,
 * for the hint.
 */
export async function loadCheckedPolicy(
  io: CliIo,
  path: string,
  schema: Schema,
  specName = 'INTENT',
): Promise<{ readonly policy: Spec; readonly source: string }> {
  const policySource = await readInput(io, path, 'policy');
  const policyName = displayName(path);
  const policy = checkPolicy(policySource, schema);
  if (!policy.ok) {
    io.stderr(
      `${renderDiagnostics(policy.diagnostics, policySource, { fileName: policyName, color: io.stderrIsTerminal })}\n`,
    );
    throw new CliError(
      `the policy '${policyName}' has errors; run 'intentguard check ${specName} --policy ${policyName}' for details`,
      1,
    );
  }
  return { policy: policy.value, source: policySource };
}
