import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { methodNames, PROTOCOL_VERSION } from '@browseragentprotocol/protocol';
import { FakeServer } from '../../client/test/fakeServer.js';
import { runCli } from './runCli.js';

let server: FakeServer;

beforeEach(async () => {
  server = await FakeServer.start();
});

afterEach(async () => {
  await server.close();
});

describe('bap info', () => {
  it('prints the server, protocol and capabilities, then shuts the session down', async () => {
    const { code, stdout } = await runCli(['info', server.url]);
    expect(code).toBe(0);
    expect(stdout).toContain('fake-bap-server 9.9.9');
    expect(stdout).toContain(`protocol  ${PROTOCOL_VERSION} (this client: ${PROTOCOL_VERSION})`);
    expect(stdout).toContain('events    page, console');
    expect(stdout).toContain(`methods   ${methodNames.length}`);
    expect(stdout).toContain('maxBatchSize=100');
    expect(server.received.at(-1)!.message.method).toBe('shutdown');
  });

  it('--json prints the initialize result', async () => {
    const { code, stdout } = await runCli(['info', server.url, '--json', '--token', 'abc']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { serverInfo: unknown; capabilities: { methods: string[] } };
    expect(result.serverInfo).toEqual({ name: 'fake-bap-server', version: '9.9.9' });
    expect(result.capabilities.methods).toHaveLength(methodNames.length);
    expect(server.urls[0]).toContain('token=abc');
  });

  it('exits 1 with a clear message when it cannot connect', async () => {
    const { url } = server;
    await server.close();
    const { code, stdout, stderr } = await runCli(['info', url]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^bap info: cannot connect to ws:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
    server = await FakeServer.start();
  });
});
