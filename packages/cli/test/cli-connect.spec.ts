import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';
// The client's test server: the CLI is a client too, so it is tested against the same fake.
import { FakeServer } from '../../client/test/fakeServer.js';
import { runCli } from './runCli.js';

let server: FakeServer;

beforeEach(async () => {
  server = await FakeServer.start();
  server.handle('page/navigate', (params, { socket }) => {
    server.notify('events/page', { type: 'navigated', pageId: 'p1', url: params?.url, timestamp: 1 }, socket);
    return { pageId: 'p1', url: params?.url, title: 'Example', status: 200 };
  });
  server.handle('page/list', () => ({ pages: [], activePage: null }));
  server.handle('action/click', () => {
    throw new BAPError(ErrorCodes.ElementNotFound, 'Nothing matches', { recoveryHint: 'Take a fresh snapshot' });
  });
});

afterEach(async () => {
  await server.close();
});

describe('bap connect', () => {
  it('runs method lines from piped stdin and prints results, errors and notifications', async () => {
    const input = [
      'page/navigate {"url":"http://example.test/"}',
      'action/click {"selector":{"type":"css","value":"#x"}}',
      'page/list',
      '',
    ].join('\n');
    const { code, stdout, stderr } = await runCli(['connect', server.url, '--token', 't0k'], input);
    expect(stderr).toContain('Connected to fake-bap-server 9.9.9');
    expect(code).toBe(0);

    const navigated = stdout.indexOf('← events/page {"type":"navigated","pageId":"p1","url":"http://example.test/","timestamp":1}');
    const result = stdout.indexOf(JSON.stringify({ pageId: 'p1', url: 'http://example.test/', title: 'Example', status: 200 }, null, 2));
    expect(navigated).toBeGreaterThanOrEqual(0);
    expect(result).toBeGreaterThan(navigated);
    expect(stdout).toContain('"name": "ElementNotFound"');
    expect(stdout).toContain('"recoveryHint": "Take a fresh snapshot"');
    expect(stdout).toContain('"activePage": null');

    expect(server.requests('page/navigate')[0]!.message.params).toEqual({ url: 'http://example.test/' });
    expect(server.requests('events/subscribe')[0]!.message.params).toEqual({
      events: ['page', 'console', 'network', 'dialog', 'download'],
    });
    expect(new URL(server.urls[0]!, 'ws://h').searchParams.get('token')).toBe('t0k');
    // End of input closes the session properly.
    expect(server.received.at(-1)!.message.method).toBe('shutdown');
  });

  it('sends raw JSON-RPC objects and batches verbatim and prints the replies', async () => {
    const input = [
      '{"jsonrpc":"2.0","id":"a","method":"page/list"}',
      '{"bogus":true}',
      '[{"jsonrpc":"2.0","id":"b","method":"page/list"},{"jsonrpc":"2.0","id":"c","method":"nope/nope"}]',
      '.exit',
      'page/list',
    ].join('\n');
    const { code, stdout } = await runCli(['connect', server.url], input);
    expect(code).toBe(0);
    expect(stdout).toContain(JSON.stringify({ jsonrpc: '2.0', id: 'a', result: { pages: [], activePage: null } }, null, 2));
    const batch = server.received.filter((r) => r.batch).map((r) => r.message);
    expect(server.received.some((r) => r.message.bogus === true)).toBe(true);
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 'b', method: 'page/list' },
      { jsonrpc: '2.0', id: 'c', method: 'nope/nope' },
    ]);
    expect(stdout).toContain('"code": -32600');
    expect(stdout).toContain('"id": "b"');
    expect(stdout).toContain('"id": "c"');
    expect(stdout).toContain('"code": -32601');
    // Nothing after .exit is sent.
    expect(server.requests('page/list')).toHaveLength(2);
  });

  it('.help lists the methods with descriptions; bad lines are reported and skipped', async () => {
    const { code, stdout, stderr } = await runCli(['connect', server.url], '.help\nno/such {}\npage/list [1]\n.bogus\n');
    expect(code).toBe(0);
    expect(stdout).toMatch(/page\/navigate\s+Navigate a page to a URL and wait for it to load\./);
    expect(stdout).toMatch(/observe\/ariaSnapshot\s+Playwright AI snapshot/);
    expect(stderr).toContain('error: unknown method no/such');
    expect(stderr).toContain('error: params must be a JSON object');
    expect(stderr).toContain('error: unknown command .bogus');
  });

  it('exits 1 when the server drops the connection', async () => {
    server.handle('page/reload', (_params, { socket }) => socket.terminate());
    const { code, stdout, stderr } = await runCli(['connect', server.url], 'page/reload\npage/list\n');
    expect(code).toBe(1);
    expect(stderr).toContain('bap connect: connection closed by the server (code 1006)');
    expect(stderr).toContain('error: Connection closed (code 1006) before the response came');
    expect(stdout).toBe('');
    expect(server.requests('page/list')).toHaveLength(0);
  });

  it('exits 1 with a clear message when it cannot connect', async () => {
    const { url } = server;
    await server.close();
    const { code, stderr } = await runCli(['connect', url], 'page/list\n');
    expect(code).toBe(1);
    expect(stderr).toContain(`bap connect: cannot connect to ${url}`);
    server = await FakeServer.start();
  });
});
