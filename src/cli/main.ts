#!/usr/bin/env node
import { nodeIo } from './io.js';
import { runCli } from './program.js';

runCli(process.argv.slice(2), nodeIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`intentguard: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
