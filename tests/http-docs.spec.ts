import { execFile, execFileSync } from 'node:child_process';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { restRoutes } from '@browseragentprotocol/protocol';
import { startServer } from '@browseragentprotocol/server-playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from './support/harness.js';

// docs/http.md shows a curl command for every REST route; here they run, in the order the page
// gives them, with the real curl against a real server, and each must succeed (a 2xx).

const run = promisify(execFile);
const docs = fileURLToPath(new URL('../docs/', import.meta.url));
const site = join(docs, 'example-site');
/** The REST part of the page: the JSON-RPC section has examples of its own. */
const restPart = readFileSync(join(docs, 'http.md'), 'utf8').split('\n## JSON-RPC over HTTP')[0]!;
const blocks = [...restPart.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
const commands = blocks.flatMap((b) => b.split('\n')).filter((line) => line.startsWith('curl '));

let siteServer: Server;
let server: RunningServer;
let workdir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('curl is not installed: the examples of docs/http.md cannot be run. Install curl (apt-get install curl).');
  }
  siteServer = createServer((req, res) => {
    const file = join(site, (req.url ?? '/').split(/[?#]/)[0]!.replace(/^\/+/, '') || 'form.html');
    res.setHeader('content-type', file.endsWith('.txt') ? 'text/plain' : 'text/html');
    createReadStream(file).on('error', () => res.writeHead(404).end()).pipe(res);
  });
  await new Promise<void>((resolve) => siteServer.listen(0, '127.0.0.1', resolve));
  server = await startServer({ host: '127.0.0.1', port: 0, logger: false, validateResults: true, uploadDirs: [site], allowEvaluate: true });
  workdir = await mkdtemp(join(tmpdir(), 'bap-http-docs-'));
  env = { ...process.env, BAP: server.httpUrl, SITE: `http://127.0.0.1:${(siteServer.address() as AddressInfo).port}` };
});

afterAll(async () => {
  await server?.close();
  siteServer?.close();
  if (workdir) await rm(workdir, { recursive: true, force: true });
});

/** `curl … -X DELETE "$BAP/tabs/page-3"` → `DELETE /tabs/page-3`. */
function requestOf(command: string): { method: string; path: string } {
  const method = /-X (\w+)/.exec(command)?.[1] ?? (/ --json | -d /.test(command) ? 'POST' : 'GET');
  return { method, path: /"\$BAP(\/[^"?]*)/.exec(command)?.[1] ?? '' };
}

describe('docs/http.md', () => {
  it('has a curl example for every REST route', () => {
    const requests = commands.map(requestOf);
    const missing = Object.values(restRoutes).filter(
      (route) => !requests.some((r) => r.method === route.method && new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(r.path)),
    );
    expect(missing.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it('every curl example succeeds against a real server, in order', { timeout: 120_000 }, async () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    // --fail-with-body: an HTTP error makes curl exit non-zero, with the error body on stdout.
    const prelude = 'set -euo pipefail\ncurl() { command curl --fail-with-body --max-time 60 "$@"; }\n';
    for (const [i, block] of blocks.entries()) {
      try {
        await run('bash', ['-c', prelude + block], { env, cwd: workdir });
      } catch (error) {
        const { stdout, stderr } = error as { stdout?: string; stderr?: string };
        throw new Error(`docs/http.md bash block ${i + 1} failed:\n${block}\nstdout: ${stdout}\nstderr: ${stderr}`);
      }
    }
    for (const file of ['page.png', 'button.jpg', 'form.png', 'page.pdf']) expect(statSync(join(workdir, file)).size, file).toBeGreaterThan(100);
  });
});
