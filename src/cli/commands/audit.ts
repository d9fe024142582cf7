import type { Command } from 'commander';
import type { AuditVerification } from '../../store/audit-chain.js';
import { printJson } from '../inputs.js';
import { CliError } from '../io.js';
import type { CommandRegistration } from '../program.js';

/** `intentguard audit verify FILE|URL`: checks the hash chain of the service's audit log. */
export const registerAudit: CommandRegistration = (program: Command, io, state) => {
  const audit = program.command('audit').description("The service's hash-chained audit log.");
  audit
    .command('verify')
    .description('Check that no entry of the audit log was edited, deleted or reordered.')
    .argument(
      '<file|url>',
      'the SQLite file of `intentguard serve --db`, or its postgres:// URL (read only)',
    )
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExit codes: 0 intact, 1 the log was tampered with (names the first bad entry), 2 the file cannot be read.',
    )
    .action(async (file: string, flags: { json?: boolean }) => {
      const { AuditFileError } = await import('../../store/audit-file-error.js');
      const { isPostgresUrl, redactedUrl } = await import('../../store/postgres-url.js');
      let result: AuditVerification;
      try {
        if (isPostgresUrl(file)) {
          // Loaded only for a database URL: `pg` is an optional package.
          const { verifyAuditDatabase } = await import('../../store/audit-postgres.js');
          result = await verifyAuditDatabase(file);
          file = redactedUrl(file);
        } else {
          const { verifyAuditFile } = await import('../../store/audit-file.js');
          result = verifyAuditFile(file);
        }
      } catch (error) {
        if (error instanceof AuditFileError) throw new CliError(error.message, 2);
        throw error;
      }
      if (flags.json) printJson(io, { file, ...result });
      else if (result.ok)
        io.stdout(`${file}: intact — ${result.entries} entries, head ${result.head}\n`);
      // The message names the entry itself (`entry 37 was changed …`); `seq` is in --json.
      else io.stdout(`${file}: ${result.message}\n`);
      state.exitCode = result.ok ? 0 : 1;
    });
};
