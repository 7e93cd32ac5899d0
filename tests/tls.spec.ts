import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BAPClient, BAPClientError } from '@browseragentprotocol/client';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../packages/cli/test/runCli.js';
import { startHarness, type Harness } from './support/harness.js';

/** A self-signed certificate for 127.0.0.1 and localhost: the server's certificate and the client's CA at once. */
async function selfSignedCertificate(): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** GET `url` over https trusting `ca`: the status and parsed body. */
function getJson(url: string, ca: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    });
    req.on('error', reject);
    req.end();
  });
}

let tls: { cert: string; key: string };
let h: Harness;
const clients: BAPClient[] = [];

/** A client of the TLS server (closed after the file), trusting the certificate unless told otherwise. */
function client(url: string, options: ConstructorParameters<typeof BAPClient>[1] = { tls: { ca: tls.cert } }): BAPClient {
  const created = new BAPClient(url, { requestTimeout: 10_000, ...options });
  clients.push(created);
  return created;
}

beforeAll(async () => {
  tls = await selfSignedCertificate();
  h = await startHarness({ server: { tls }, connect: false });
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await h?.stop();
});

describe('TLS', () => {
  it('serves wss:// and https:// on one port', async () => {
    const { port } = h.server;
    expect(h.server.url).toBe(`wss://127.0.0.1:${port}`);
    expect(h.server.httpUrl).toBe(`https://127.0.0.1:${port}`);
    expect(await getJson(`${h.server.httpUrl}/health`, tls.cert)).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('a client given the CA connects, by address or by name, and drives a page', async () => {
    const agent = client(h.server.url);
    await agent.connect();
    const page = await agent.call('page/create', { url: h.url('list.html') });
    expect((await agent.call('observe/content', { pageId: page.id })).content).toContain('Groceries');

    const byName = client(h.server.url.replace('127.0.0.1', 'localhost'));
    expect((await byName.connect()).serverInfo.name).toBeTruthy();
  });

  it('a client without the CA, or speaking plain ws://, fails to connect with ECONNECT', async () => {
    const untrusting = client(h.server.url, {});
    const refused = await untrusting.connect().then(
      () => null,
      (e: unknown) => e,
    );
    expect(BAPClientError.is(refused, 'ECONNECT'), String(refused)).toBe(true);
    expect((refused as Error).message).toBe(`Cannot connect to ${h.server.url}/: self-signed certificate`);

    const plain = client(h.server.url.replace('wss:', 'ws:'), {});
    await expect(plain.connect()).rejects.toSatisfy((e: unknown) => BAPClientError.is(e, 'ECONNECT'));
  });
});

describe('bap serve --tls-cert --tls-key', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bap-tls-'));
    await writeFile(join(dir, 'cert.pem'), tls.cert);
    await writeFile(join(dir, 'key.pem'), tls.key);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints a wss:// ready line, answers /health over https and a client with the CA, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--quiet', '--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = once(child, 'exit');
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          stdout += chunk;
          if (stdout.includes('\n')) resolve(stdout);
        });
        child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
      });
      const match = /^BAP server ready on wss:\/\/127\.0\.0\.1:(\d+) \(health: https:\/\/127\.0\.0\.1:(\d+)\/health\)\n$/.exec(line);
      expect(match, line).not.toBeNull();
      expect(match![1]).toBe(match![2]);
      expect(await getJson(`https://127.0.0.1:${match![1]}/health`, tls.cert)).toMatchObject({ status: 200, body: { status: 'ok' } });
      const agent = client(`wss://127.0.0.1:${match![1]}`);
      await agent.connect();
      await agent.close();
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await exited;
    expect(code, stderr).toBe(0);
  });

  it('refuses a certificate without its key, and a file that is not PEM, in one line on stderr', async () => {
    const alone = await runCli(['serve', '--port', '0', '--quiet', '--tls-cert', join(dir, 'cert.pem')]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toBe('bap serve: cannot start the server: --tls-cert and --tls-key go together\n');

    await writeFile(join(dir, 'garbage.pem'), 'not a certificate\n');
    const garbage = await runCli(['serve', '--port', '0', '--quiet', '--tls-cert', join(dir, 'garbage.pem'), '--tls-key', join(dir, 'key.pem')]);
    expect(garbage.code).toBe(1);
    expect(garbage.stdout).toBe('');
    expect(garbage.stderr).toMatch(/^bap serve: cannot start the server: .+\n$/);
  });
});
