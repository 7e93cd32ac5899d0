import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from './runCli.js';

describe('bap serve', () => {
  it('prints one readiness line, serves /health, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const ready = new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('\n')) resolve(stdout);
      });
      child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
    const line = await ready;
    const match = /^BAP server ready on ws:\/\/127\.0\.0\.1:(\d+) \(health: http:\/\/127\.0\.0\.1:(\d+)\/health\)\n$/.exec(line);
    expect(match, line).not.toBeNull();
    expect(match![1]).toBe(match![2]);

    const health = await fetch(`http://127.0.0.1:${match![1]}/health`);
    expect(await health.json()).toMatchObject({ status: 'ok' });

    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(stdout).toBe(line);
  });

  it('reports a start-up failure in one line on stderr and exits 1', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as AddressInfo;
    try {
      const { code, stdout, stderr } = await runCli(['serve', '--port', String(port), '--quiet']);
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^bap serve: cannot start the server: .*EADDRINUSE.*\n$/);
      expect(stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      blocker.close();
    }
  });
});
