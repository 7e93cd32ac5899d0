import { describe, expect, it } from 'vitest';
import { runCli } from './runCli.js';

describe('bap mcp', () => {
  it('documents its transports, tool sets and security flags', async () => {
    const { code, stdout: wrapped } = await runCli(['mcp', '--help']);
    expect(code).toBe(0);
    const stdout = wrapped.replace(/\s+/g, ' ');
    for (const flag of ['--url <ws-url>', '--port <port>', '--slim', '--caps <list>', '--scopes <list>', '--allowed-domains <list>', '--blocked-domains <list>', '--approval-file <path>']) {
      expect(stdout).toContain(flag);
    }
  });

  it('refuses bad flags in one line naming the flag, before starting anything', async () => {
    const caps = await runCli(['mcp', '--caps', 'evaluate,teleport']);
    expect(caps.code).not.toBe(0);
    expect(caps.stderr).toContain('unknown capability "teleport"');
    const scopes = await runCli(['mcp', '--scopes', 'everything']);
    expect(scopes.code).toBe(1);
    expect(scopes.stderr).toMatch(/^bap mcp: cannot start: scopes\[0\]: "everything" is not a scope/);
    const remote = await runCli(['mcp', '--url', 'ws://127.0.0.1:9', '--allowed-domains', 'example.com']);
    expect(remote.code).toBe(1);
    expect(remote.stderr).toContain('--allowed-domains configures the in-process engine');
  });
});
