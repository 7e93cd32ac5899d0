import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

describe('bap --help', () => {
  it('lists the commands with their descriptions', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: bap [options] [command]');
    expect(stdout).toMatch(/serve \[options\]\s+Run a BAP server/);
    expect(stdout).toMatch(/info \[options\] <url>\s+Connect to a BAP server and print/);
    expect(stdout).toMatch(/connect \[options\] <url>\s+Open an interactive JSON-RPC prompt/);
  });

  it('documents every serve option', async () => {
    const { code, stdout: wrapped } = await runCli(['serve', '--help']);
    expect(code).toBe(0);
    // Commander wraps descriptions at the terminal width.
    const stdout = wrapped.replace(/\s+/g, ' ');
    for (const flag of ['--port <port>', '--host <host>', '--headed', '--browser-path <path>', '--max-message-size <bytes>', '--quiet']) {
      expect(stdout).toContain(flag);
    }
    expect(stdout).toContain('(default: 9222)');
    expect(stdout).toContain('BAP server ready on ws://127.0.0.1:9222 (health: http://127.0.0.1:9222/health)');
  });

  it('documents info and connect', async () => {
    const info = await runCli(['info', '--help']);
    expect(info.stdout).toContain('--json');
    expect(info.stdout).toContain('--token <token>');
    const connect = await runCli(['connect', '--help']);
    expect(connect.stdout).toContain('.help');
    expect(connect.stdout).toContain('page/navigate {"url":"https://example.com"}');
  });

  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    const { code, stdout } = await runCli(['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('rejects a bad port with exit code 1', async () => {
    const { code, stderr } = await runCli(['serve', '--port', 'ninety']);
    expect(code).toBe(1);
    expect(stderr).toContain('expected an integer from 0 to 65535');
  });
});
