import { readFileSync } from 'node:fs';

/** Read at run time so `bap --version` cannot drift from the published package. */
export const CLI_VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
