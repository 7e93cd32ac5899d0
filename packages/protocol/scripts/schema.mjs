// Writes schema/bap.schema.json from the built protocol package; `--check` fails when the file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildJsonSchema } from '../dist/index.js';

const file = fileURLToPath(new URL('../schema/bap.schema.json', import.meta.url));
const fresh = `${JSON.stringify(buildJsonSchema(), null, 2)}\n`;
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {}
  if (current !== fresh) {
    console.error('schema/bap.schema.json is stale: run `npm run schema -w @browseragentprotocol/protocol` and commit it.');
    process.exit(1);
  }
  console.log('schema/bap.schema.json is up to date');
} else {
  writeFileSync(file, fresh);
  console.log(`wrote ${file} (${fresh.length} bytes)`);
}
