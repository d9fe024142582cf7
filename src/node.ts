/**
 * Node-only parts of intentguard: the command line as a function, and its I/O.
 * The complete public surface of `intentguard/node` (named exports only; pinned by
 * `test/architecture/public-api.test.ts`).
 *
 * @example
 * import { runCli, nodeIo } from 'intentguard/node';
 * process.exitCode = await runCli(['check', 'spec.intent', '--states', 'states.json'], nodeIo());
 */
export { CliError, type CliErrorCode, type CliIo, nodeIo } from './cli/io.js';
export { runCli } from './cli/program.js';
