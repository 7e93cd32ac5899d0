import { readdirSync, readFileSync } from 'node:fs';
import { methodNames } from '@browseragentprotocol/protocol';
import { describe, expect, it } from 'vitest';

// Every request method of the protocol table must be exercised by at least one e2e test, so a
// method added to the table without a test fails here.

const TESTS_DIR = new URL('./', import.meta.url);
const SELF = 'method-coverage.spec.ts';

describe('method coverage', () => {
  it('every method of the protocol table is called by an e2e test', () => {
    const sources = readdirSync(TESTS_DIR)
      .filter((name) => name.endsWith('.spec.ts') && name !== SELF)
      .map((name) => readFileSync(new URL(name, TESTS_DIR), 'utf8'))
      .join('\n');
    const uncovered = methodNames.filter((name) => {
      const quoted = `'${name}'`;
      return ![`call(${quoted}`, `request(${quoted}`, `method: ${quoted}`].some((pattern) => sources.includes(pattern));
    });
    expect(uncovered).toEqual([]);
  });
});
