import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BAPClient } from '@browseragentprotocol/client';
import { startServer } from '@browseragentprotocol/server-playwright';
import { ErrorCodes, expandScopes, methodNames, methods, scopeGranted, type MethodName, type TokenGrant } from '@browseragentprotocol/protocol';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';

/** Every scope the method table uses. */
const SCOPES = [...new Set(methodNames.map((m) => methods[m].scope).filter((s): s is string => s !== null))];
const scoped = methodNames.filter((m) => methods[m].scope !== null);
const tokenFor = (label: string) => `test-token-${label.replace(/[^A-Za-z0-9]/g, '-')}-0123456789`;

/** One token per scope holding only it, one per scope holding every other, and a few more. */
const TOKENS: Record<string, TokenGrant> = {
  [tokenFor('nothing')]: { name: 'nothing', scopes: [] },
  [tokenFor('readonly')]: { name: 'readonly', scopes: ['readonly'] },
  [tokenFor('standard')]: { name: 'standard', scopes: ['standard'] },
  [tokenFor('act-no-click')]: { name: 'act-no-click', scopes: ['agent:act', 'page:*'] },
  [tokenFor('expired')]: { name: 'expired', scopes: ['privileged'], expiresAt: '2020-01-01T00:00:00Z' },
  [tokenFor('other')]: { name: 'other', scopes: ['privileged'] },
  ...Object.fromEntries(SCOPES.flatMap((scope) => [
    [tokenFor(`only-${scope}`), { name: `only ${scope}`, scopes: [scope] }],
    [tokenFor(`without-${scope}`), { name: `without ${scope}`, scopes: SCOPES.filter((s) => s !== scope) }],
  ])),
};

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ server: { tokens: TOKENS, requestsPerSecond: 10_000 }, connect: false });
});

afterAll(async () => {
  await h?.stop();
});

async function connect(label: string, options: ConstructorParameters<typeof BAPClient>[1] = {}): Promise<BAPClient> {
  const client = new BAPClient(h.server.url, { token: tokenFor(label), events: [], ...options });
  await client.connect();
  return client;
}

/** Deliberately invalid params: a call the token may make fails validation (-32602), not authorization. */
const BOGUS = { __notAParam: true } as never;

describe('scopes, walking the whole method table', () => {
  it(`each of the ${scoped.length} scoped methods is refused without its scope and allowed with it`, async () => {
    expect(scoped.length).toBe(methodNames.length - 3);
    const nothing = await connect('nothing');
    try {
      for (const method of scoped) {
        const scope = methods[method].scope!;
        const { error } = await expectBAPError(() => nothing.call(method, BOGUS), ErrorCodes.Unauthorized);
        expect(error.message).toContain(`"${scope}"`);
        expect(error.data.details).toEqual({ method, scope });
      }
    } finally {
      await nothing.close();
    }
    for (const scope of SCOPES) {
      const [only, without] = await Promise.all([connect(`only-${scope}`), connect(`without-${scope}`)]);
      try {
        for (const method of scoped.filter((m) => methods[m].scope === scope)) {
          await expectBAPError(() => only.call(method, BOGUS), ErrorCodes.InvalidParams);
          await expectBAPError(() => without.call(method, BOGUS), ErrorCodes.Unauthorized);
        }
      } finally {
        await Promise.all([only.close(), without.close()]);
      }
    }
  });

  it('the handshake methods need no scope', async () => {
    const nothing = await connect('nothing');
    try {
      expect(await nothing.call('events/subscribe', { events: ['page'] })).toMatchObject({ subscribed: ['page'] });
    } finally {
      await nothing.close();
    }
  });

  it('profiles: readonly looks, standard acts, full adds storage and network, privileged has everything', async () => {
    const can = (profile: string, method: MethodName) => scopeGranted(expandScopes([profile]), methods[method].scope!);
    expect(['agent/observe', 'observe/screenshot', 'page/list'].every((m) => can('readonly', m as MethodName))).toBe(true);
    expect(['action/click', 'page/navigate', 'storage/getCookies'].some((m) => can('readonly', m as MethodName))).toBe(false);
    expect(['action/click', 'agent/act', 'page/navigate', 'approval/respond'].every((m) => can('standard', m as MethodName))).toBe(true);
    expect(['storage/getCookies', 'network/intercept', 'trace/start'].some((m) => can('standard', m as MethodName))).toBe(false);
    expect(['storage/getCookies', 'network/intercept', 'trace/start'].every((m) => can('full', m as MethodName))).toBe(true);
    expect(scoped.every((m) => can('privileged', m))).toBe(true);
    expect(scopeGranted(expandScopes(['full']), 'eval')).toBe(false);
    expect(scopeGranted(expandScopes(['privileged']), 'eval')).toBe(true);

    const readonly = await connect('readonly');
    try {
      await expectBAPError(() => readonly.call('page/navigate', { url: h.url('form.html') }), ErrorCodes.Unauthorized);
    } finally {
      await readonly.close();
    }
  });

  it('agent/act is refused before any step runs when one step is out of scope', async () => {
    const client = await connect('act-no-click');
    try {
      const { error } = await expectBAPError(
        () => client.act([
          { action: 'page/navigate', params: { url: h.url('form.html') } },
          { action: 'action/click', params: { selector: { type: 'css', value: 'button' } } },
        ]),
        ErrorCodes.Unauthorized,
      );
      expect(error.message).toContain('"action:click"');
      expect((await client.call('page/list', {})).pages).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

/** Opens a raw WebSocket: 'open' or the close code and reason the server answered with. */
function rawConnect(url: string, headers: Record<string, string> = {}): Promise<{ code: number; reason: string } | 'open'> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    let opened = false;
    ws.once('open', () => {
      opened = true;
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '0.2.0', clientInfo: { name: 't', version: '1' } } }));
    });
    ws.once('message', () => {
      ws.close();
      resolve('open');
    });
    ws.once('close', (code, reason) => opened && resolve({ code, reason: reason.toString() }));
    ws.once('error', reject);
  });
}

describe('tokens', () => {
  it('are accepted as ?token=, Authorization: Bearer and X-BAP-Token; anything else closes with 1008', async () => {
    const token = tokenFor('standard');
    expect(await rawConnect(`${h.server.url}/?token=${token}`)).toBe('open');
    expect(await rawConnect(h.server.url, { Authorization: `Bearer ${token}` })).toBe('open');
    expect(await rawConnect(h.server.url, { 'X-BAP-Token': token })).toBe('open');
    expect(await rawConnect(h.server.url)).toEqual({ code: 1008, reason: expect.stringContaining('a token is required') });
    expect(await rawConnect(`${h.server.url}/?token=${token}x`)).toEqual({ code: 1008, reason: 'Unauthorized: the token is not valid.' });
    expect(await rawConnect(`${h.server.url}/?token=${tokenFor('expired')}`)).toEqual({ code: 1008, reason: 'Unauthorized: token "expired" has expired.' });
    await expect(new BAPClient(h.server.url, { token: 'wrong-token-0123456789' }).connect()).rejects.toThrow(/not valid/);
  });

  it('a token that expires during a session is refused from then on', async () => {
    const server = await startServer({ host: '127.0.0.1', port: 0, logger: false, tokens: { 'short-lived-token-0123': { name: 'short', scopes: ['readonly'], expiresAt: Date.now() + 1_500 } } });
    const client = new BAPClient(server.url, { token: 'short-lived-token-0123', events: [] });
    try {
      await client.connect();
      expect(await client.call('page/list', {})).toMatchObject({ pages: [] });
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      const { error } = await expectBAPError(() => client.call('page/list', {}), ErrorCodes.Unauthorized);
      expect(error.message).toContain('expired');
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('a session can only be resumed with the token that opened it', async () => {
    const sessionId = 'resume-check-0123456789';
    const first = await connect('standard', { sessionId });
    try {
      await expect(connect('other', { sessionId })).rejects.toThrow(/belongs to another token/);
      expect(await first.call('page/list', {})).toMatchObject({ pages: [] });
    } finally {
      await first.close();
    }
  });

  it('the tokens and secrets files docs/security.md shows are accepted as they are', async () => {
    const doc = readFileSync(new URL('../docs/security.md', import.meta.url), 'utf8');
    const block = (name: string) => JSON.parse(new RegExp('```json ' + name + '\\n([\\s\\S]*?)```').exec(doc)![1]!);
    const server = await startServer({ host: '127.0.0.1', port: 0, logger: false, tokens: block('tokens-file'), secrets: block('secrets-file') });
    try {
      const client = new BAPClient(server.url, { token: 'b7f3c1e2-agent-token-change-me', events: [] });
      await client.connect();
      await expectBAPError(() => client.call('storage/getCookies', {}), ErrorCodes.Unauthorized);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it('a server without tokens refuses to bind beyond loopback; bad token files are refused at start', async () => {
    await expect(startServer({ host: '0.0.0.0', port: 0, logger: false })).rejects.toThrow(/Refusing to bind 0\.0\.0\.0 without tokens/);
    await expect(startServer({ port: 0, logger: false, tokens: { short: { name: 'x' } } })).rejects.toThrow('Invalid tokens: tokens[0] ("x"): a token is 16 to 512 non-space characters.');
    await expect(startServer({ port: 0, logger: false, tokens: { 'long-enough-token-123': { name: 'x', scopes: ['action:click', 'everything'] } } })).rejects.toThrow(/scopes/);
  });
});
