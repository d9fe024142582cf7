#!/usr/bin/env node
import { errorMessage } from '../support/error-message.js';
import { nodeIo } from './io.js';
import { runCli } from './program.js';

// A reader that stops early (`intentguard demo | head`) closes the pipe: that ends
// the output, quietly, instead of crashing with an unhandled EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

runCli(process.argv.slice(2), nodeIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`intentguard: ${errorMessage(error)}\n`);
    process.exitCode = 2;
  },
);
