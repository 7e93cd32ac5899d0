import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAPClient } from '@browseragentprotocol/client';
import { ErrorCodes, type ApprovalRequired } from '@browseragentprotocol/protocol';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';
import { TcpProxy } from './support/tcpProxy.js';

const PASSWORD = 'hunter2-Correct-Horse';
const CARD = '4111111111111111';
const API_KEY = 'sk-live-9f8e7d6c5b4a3210';
const TOKEN = 'secret-test-token-0123456789';
/** The values, and the longest prefix of the typed one (a page echoing keystrokes would show it). */
const LEAKS = [PASSWORD, CARD, API_KEY, API_KEY.slice(0, -1), TOKEN];

describe('secrets never leave the server', () => {
  let h: Harness;
  let dir: string;
  let proxy: TcpProxy;
  let client: BAPClient;
  const logLines: string[] = [];
  const approvals: ApprovalRequired[] = [];
  const notifications: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bap-secrets-'));
    h = await startHarness({
      connect: false,
      server: {
        logger: pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) }),
        tokens: { [TOKEN]: { name: 'agent', scopes: ['privileged'] } },
        secrets: { API_KEY: { value: API_KEY, domains: ['127.0.0.1'] }, OTHER_SITE: { value: 'never-typed-here', domains: ['*.example.com'] } },
        audit: { path: join(dir, 'audit.log') },
        approval: { mode: 'required', rules: [{ name: 'fields', match: { actions: ['action/fill', 'action/type'] }, action: 'require' }] },
      },
    });
    proxy = await TcpProxy.start(h.server.port);
    client = new BAPClient(`ws://127.0.0.1:${proxy.port}`, {
      token: TOKEN,
      events: ['page', 'console', 'network'],
      onApprovalRequired: (request) => {
        approvals.push(request);
        return 'approve';
      },
    });
    client.on('notification', (n) => void notifications.push(JSON.stringify(n)));
    await client.connect();
  });

  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await h?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a password typed with action/fill and a {{secret:NAME}} appear in no reply, notification, log line, audit line, approval request or trace', async () => {
    const { id: pageId } = await client.call('page/create', { url: h.url('leaky.html') });
    await client.call('trace/start', { screenshots: true, snapshots: true });
    const results: unknown[] = [];
    const keep = async <T>(call: Promise<T>) => {
      const result = await call;
      results.push(result);
      return result;
    };
    await keep(client.fill('#user', 'alice', { pageId }));
    await keep(client.fill('#pass', PASSWORD, { pageId }));
    await keep(client.fill('#card', CARD, { pageId }));
    await keep(client.type('#key', '{{secret:API_KEY}}', { pageId }));
    await keep(client.act([{ action: 'action/fill', params: { selector: { type: 'css', value: '#user' }, value: `{{secret:API_KEY}}` } }], { pageId }));

    // The page echoed every value into its text, title, attributes, console and requests; look everywhere.
    await keep(client.observe({ pageId, responseTier: 'full' }));
    for (const format of ['text', 'markdown', 'html'] as const) await keep(client.call('observe/content', { pageId, format }));
    await keep(client.call('observe/dom', { pageId }));
    await keep(client.call('observe/ariaSnapshot', { pageId }));
    await keep(client.call('observe/element', { pageId, selector: { type: 'css', value: '#pass' }, properties: ['value', 'attributes', 'text'] } as never).catch((e: unknown) => e));
    await keep(client.call('page/list', {}));
    await keep(client.extract({ type: 'object', properties: { echo: { type: 'string' }, title: { type: 'string' } } }, { pageId }).catch((e: unknown) => e));
    await keep(client.call('page/waitFor', { pageId, text: 'never there', timeout: 200 }).catch((e: unknown) => e));
    const trace = await client.call('trace/stop', {});

    // The agent sees where its secret went, by name.
    const { content } = await client.call('observe/content', { pageId, format: 'text' });
    expect(content).toContain('echo: {{secret:API_KEY}}');

    const files = unzipSync(Buffer.from(trace.data, 'base64'));
    const traceText = Object.values(files).map((bytes) => strFromU8(bytes, true)).join('\n');
    expect(Object.keys(files).length).toBeGreaterThan(1);

    const captured: Record<string, string> = {
      'wire (every byte the server sent)': proxy.received(),
      results: JSON.stringify(results),
      notifications: notifications.join('\n'),
      'log lines': logLines.join(''),
      'audit lines': readFileSync(join(dir, 'audit.log'), 'utf8'),
      'approval requests': JSON.stringify(approvals),
      trace: traceText,
    };
    expect(approvals.length).toBeGreaterThanOrEqual(5);
    expect(notifications.some((n) => n.includes('events/console'))).toBe(true);
    expect(logLines.some((l) => l.includes('action/fill'))).toBe(true);
    for (const [channel, text] of Object.entries(captured)) {
      expect(text.length, channel).toBeGreaterThan(0);
      for (const secret of LEAKS) expect(text.includes(secret), `${secret} found in ${channel}`).toBe(false);
    }
  });

  it('unknown secrets and secrets bound to other domains are refused, naming the field', async () => {
    const { id: pageId } = await client.call('page/create', { url: h.url('leaky.html') });
    const unknown = await expectBAPError(() => client.fill('#user', 'x{{secret:NOPE}}', { pageId }), ErrorCodes.InvalidParams);
    expect(unknown.error.message).toBe('params.value: unknown secret "NOPE".');
    const bound = await expectBAPError(() => client.type('#user', '{{secret:OTHER_SITE}}', { pageId }), ErrorCodes.DomainNotAllowed);
    expect(bound.error.message).toContain('*.example.com');
  });
});
