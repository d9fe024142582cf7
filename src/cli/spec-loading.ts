import { checkPolicy, checkSpec, renderDiagnostics, type Spec } from '../language/index.js';
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
  // Fail closed: a policy that does not check runs nothing (LANGUAGE.md §8).
  const policySource = await readInput(io, options.policy, 'policy');
  const policyName = displayName(options.policy);
  const policy = checkPolicy(policySource, schema.schema);
  if (!policy.ok) {
    io.stderr(
      `${renderDiagnostics(policy.diagnostics, policySource, { fileName: policyName, color: io.stderrIsTerminal })}\n`,
    );
    throw new CliError(
      `the policy '${policyName}' has errors; run 'intentguard check ${fileName} --policy ${policyName}' for details`,
      1,
    );
  }
  return { spec: result.value, policy: policy.value, schema, fileName };
}
