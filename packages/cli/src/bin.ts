#!/usr/bin/env node
import { createProgram } from './program.js';

createProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    process.stderr.write(`bap: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
