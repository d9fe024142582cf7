import {
  checkPolicy,
  checkSpec,
  renderDiagnostics,
  type Schema,
  type Spec,
} from '../language/index.js';
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
 */
export async function loadCheckedSpec(
  io: CliIo,
  specPath: string,
  options: SchemaOptions & { readonly policy?: string },
): Promise<LoadedSpec> {
  assertOneStandardInput({
    SPEC: specPath,
    '--policy': options.policy,
    '--states': options.states,
    '--tools': options.tools,
  });
  const schema = await loadSchemaOption(io, options, true);
  if (!schema) throw new CliError('a schema is required: give --states FILE or --tools FILE', 2);
  const source = await readInput(io, specPath, 'spec');
  const fileName = displayName(specPath);
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
