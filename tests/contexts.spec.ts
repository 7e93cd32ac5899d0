import type { BAPClient } from '@browseragentprotocol/client';
import { ErrorCodes } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBAPError } from './support/expectations.js';
import { startHarness, type Harness } from './support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ connect: false, server: { maxContexts: 4, maxPagesPerContext: 3 } });
});

afterAll(async () => {
  await h?.stop();
});

/** What context-info.html shows for one of its fields. */
async function shown(client: BAPClient, pageId: string, field: string): Promise<string> {
  const el = await client.call('observe/element', { pageId, selector: { type: 'css', value: `#${field}` }, properties: ['text'] });
  return el.text ?? '';
}

describe('context/create, context/list, context/destroy', () => {
  it('keeps cookies apart: two contexts on the same site see only their own', async () => {
    const client = await h.newClient();
    const site = h.url('context-info.html');
    await client.call('context/create', { contextId: 'alice' });
    await client.call('context/create', { contextId: 'bob' });
    await client.call('storage/setCookies', { contextId: 'alice', cookies: [{ name: 'user', value: 'alice', url: site }] });
    await client.call('storage/setCookies', { contextId: 'bob', cookies: [{ name: 'user', value: 'bob', url: site }] });
    const a = await client.call('page/create', { contextId: 'alice', url: site });
    const b = await client.call('page/create', { contextId: 'bob', url: site });
    expect(a.contextId).toBe('alice');
    expect(b.contextId).toBe('bob');
    expect(await shown(client, a.id, 'cookies')).toBe('user=alice');
    expect(await shown(client, b.id, 'cookies')).toBe('user=bob');

    await client.call('action/click', { pageId: a.id, selector: { type: 'css', value: '#remember' } });
    await client.call('page/reload', { pageId: b.id });
    expect(await shown(client, b.id, 'stored')).toBe('(none)');
    await client.close();
  });

  it('applies creation options: viewport, user agent, locale, time zone, color scheme, offline, geolocation', async () => {
    const client = await h.newClient();
    await client.call('context/create', {
      contextId: 'paris',
      options: {
        viewport: { width: 800, height: 600 },
        userAgent: 'BAP-Test-Agent/1.0',
        locale: 'fr-FR',
        timezoneId: 'Europe/Paris',
        colorScheme: 'dark',
        geolocation: { latitude: 48.8566, longitude: 2.3522 },
      },
    });
    const page = await client.call('page/create', { contextId: 'paris', url: h.url('context-info.html') });
    expect(page.viewport).toEqual({ width: 800, height: 600 });
    expect(await shown(client, page.id, 'agent')).toBe('BAP-Test-Agent/1.0');
    expect(await shown(client, page.id, 'language')).toBe('fr-FR');
    expect(await shown(client, page.id, 'zone')).toBe('Europe/Paris');
    expect(await shown(client, page.id, 'scheme')).toBe('dark');
    await client.call('action/click', { pageId: page.id, selector: { type: 'css', value: '#locate' } });
    await expect.poll(() => shown(client, page.id, 'position')).toBe('48.8566,2.3522');

    const listed = await client.call('context/list', {});
    const paris = listed.contexts.find((c) => c.id === 'paris')!;
    expect(paris).toMatchObject({ pageCount: 1, isDefault: false, options: { locale: 'fr-FR', timezoneId: 'Europe/Paris' } });
    await client.close();
  });

  it('starts a context from a storageState and lists it without the state', async () => {
    const client = await h.newClient();
    const origin = new URL(h.url('')).origin;
    await client.call('context/create', {
      contextId: 'restored',
      options: {
        storageState: {
          cookies: [{ name: 'token', value: 'abc', domain: '127.0.0.1', path: '/' }],
          origins: [{ origin, localStorage: [{ name: 'note', value: 'from state' }] }],
        },
      },
    });
    const page = await client.call('page/create', { contextId: 'restored', url: h.url('context-info.html') });
    expect(await shown(client, page.id, 'cookies')).toBe('token=abc');
    expect(await shown(client, page.id, 'stored')).toBe('from state');
    const listed = await client.call('context/list', {});
    expect(JSON.stringify(listed)).not.toContain('abc');
    await client.close();
  });

  it('has a default context made on first need; page/create without contextId goes there', async () => {
    const client = await h.newClient();
    expect((await client.call('context/list', {})).contexts).toEqual([]);
    const page = await client.call('page/create', {});
    expect(page.contextId).toBe('default');
    const listed = await client.call('context/list', {});
    expect(listed.contexts).toEqual([expect.objectContaining({ id: 'default', isDefault: true, pageCount: 1 })]);
    expect(listed.limits).toEqual({ maxContexts: 4, maxPagesPerContext: 3, currentCount: 1 });
    await client.close();
  });

  it('generates ids, and destroy closes the context and its pages', async () => {
    const client = await h.newClient();
    const { contextId } = await client.call('context/create', {});
    expect(contextId).toMatch(/^ctx-[0-9a-f]{8}$/);
    const one = await client.call('page/create', { contextId });
    await client.call('page/create', { contextId });
    expect(await client.call('context/destroy', { contextId })).toEqual({ pagesDestroyed: 2 });
    expect((await client.call('page/list', {})).pages).toEqual([]);
    await expectBAPError(() => client.call('page/navigate', { pageId: one.id, url: h.url('links.html') }), ErrorCodes.PageNotFound);
    expect((await client.call('context/list', {})).contexts).toEqual([]);
    await client.close();
  });

  it('enforces the context and per-context page limits with ResourceLimitExceeded', async () => {
    const client = await h.newClient();
    for (const id of ['c1', 'c2', 'c3', 'c4']) await client.call('context/create', { contextId: id });
    const tooMany = await expectBAPError(() => client.call('context/create', { contextId: 'c5' }), ErrorCodes.ResourceLimitExceeded);
    expect(tooMany.error.data.details).toMatchObject({ resource: 'contexts', limit: 4, current: 4 });
    for (let i = 0; i < 3; i++) await client.call('page/create', { contextId: 'c1' });
    const full = await expectBAPError(() => client.call('page/create', { contextId: 'c1' }), ErrorCodes.ResourceLimitExceeded);
    expect(full.error.data.details).toMatchObject({ resource: 'pagesPerContext', limit: 3 });
    await client.call('page/create', { contextId: 'c2' });
    await client.close();
  });

  it('rejects bad ids, duplicates, unknown contexts and bad options precisely', async () => {
    const client = await h.newClient();
    const invalid = await expectBAPError(() => client.call('context/create', { contextId: 'no spaces!' }), ErrorCodes.InvalidParams);
    expect(invalid.error.message).toContain('params.contextId');
    await expectBAPError(() => client.call('context/create', { contextId: 'x'.repeat(65) }), ErrorCodes.InvalidParams);
    await client.call('context/create', { contextId: 'twice' });
    const dup = await expectBAPError(() => client.call('context/create', { contextId: 'twice' }), ErrorCodes.InvalidParams);
    expect(dup.error.message).toContain('already exists');
    const missing = await expectBAPError(() => client.call('context/destroy', { contextId: 'nope' }), ErrorCodes.ContextNotFound);
    expect(missing.error.data.details).toMatchObject({ contextId: 'nope', contexts: ['twice'] });
    await expectBAPError(() => client.call('page/create', { contextId: 'nope' }), ErrorCodes.ContextNotFound);
    await expectBAPError(() => client.call('storage/getCookies', { contextId: 'nope' }), ErrorCodes.ContextNotFound);
    const zone = await expectBAPError(
      () => client.call('context/create', { options: { timezoneId: 'Mars/Olympus' } }),
      ErrorCodes.InvalidParams,
    );
    expect(zone.error.message).toContain('options.timezoneId');
    const permission = await expectBAPError(
      () => client.call('context/create', { options: { permissions: ['telepathy'] } }),
      ErrorCodes.InvalidParams,
    );
    expect(permission.error.message).toContain('options.permissions');
    expect((await client.call('context/list', {})).contexts.map((c) => c.id)).toEqual(['twice']);
    await client.close();
  });
});

describe('storage/*', () => {
  it('gets, sets and clears cookies; getState and setState round-trip cookies and localStorage', async () => {
    const client = await h.newClient();
    const site = h.url('context-info.html');
    const page = await client.call('page/create', { url: site });
    await client.call('storage/setCookies', {
      cookies: [
        { name: 'a', value: '1', url: site },
        { name: 'b', value: '2', domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Strict' },
      ],
    });
    const { cookies } = await client.call('storage/getCookies', { urls: [site] });
    expect(cookies.map((c) => `${c.name}=${c.value}`).sort()).toEqual(['a=1', 'b=2']);
    expect(cookies.find((c) => c.name === 'b')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect((await client.call('storage/getCookies', { urls: ['http://elsewhere.test/'] })).cookies).toEqual([]);

    await client.call('action/click', { pageId: page.id, selector: { type: 'css', value: '#remember' } });
    const state = await client.call('storage/getState', {});
    expect(state.cookies).toHaveLength(2);
    expect(state.origins).toEqual([{ origin: new URL(site).origin, localStorage: [{ name: 'note', value: 'remembered' }] }]);

    expect(await client.call('storage/clearCookies', { name: 'a' })).toEqual({ cleared: 1 });
    expect((await client.call('storage/getCookies', {})).cookies.map((c) => c.name)).toEqual(['b']);
    expect(await client.call('storage/clearCookies', {})).toEqual({ cleared: 1 });
    expect((await client.call('storage/getCookies', {})).cookies).toEqual([]);

    await client.call('context/create', { contextId: 'copy' });
    await client.call('storage/setState', { contextId: 'copy', state });
    const copy = await client.call('page/create', { contextId: 'copy', url: site });
    expect(await shown(client, copy.id, 'cookies')).toBe('a=1');
    expect(await shown(client, copy.id, 'stored')).toBe('remembered');
    await client.close();
  });

  it('names the field of a cookie it cannot set', async () => {
    const client = await h.newClient();
    const noTarget = await expectBAPError(
      () => client.call('storage/setCookies', { cookies: [{ name: 'a', value: '1' }] }),
      ErrorCodes.InvalidParams,
    );
    expect(noTarget.error.message).toContain('params.cookies.0');
    const bad = await expectBAPError(
      () => client.call('storage/setCookies', { cookies: [{ name: 'a', value: '1', url: 'not a url' }] }),
      ErrorCodes.InvalidParams,
    );
    expect(bad.error.message).toContain('params.cookies');
    await client.close();
  });
});

describe('emulate/*', () => {
  it('changes viewport, user agent, geolocation and offline state of a live page', async () => {
    const client = await h.newClient();
    const page = await client.call('page/create', { url: h.url('context-info.html') });
    await client.call('emulate/setViewport', { width: 640, height: 480 });
    await expect.poll(() => shown(client, page.id, 'size')).toBe('640x480');
    await client.call('emulate/setViewport', { width: 390, height: 844, deviceScaleFactor: 3, isMobile: true, hasTouch: true });

    await client.call('emulate/setUserAgent', { userAgent: 'Changed/2.0', acceptLanguage: 'de-DE' });
    await client.call('page/reload', {});
    expect(await shown(client, page.id, 'agent')).toBe('Changed/2.0');
    expect(await shown(client, page.id, 'language')).toBe('de-DE');

    await client.call('emulate/setGeolocation', { latitude: 35.68, longitude: 139.69, accuracy: 10 });
    await client.call('action/click', { selector: { type: 'css', value: '#locate' } });
    await expect.poll(() => shown(client, page.id, 'position')).toBe('35.68,139.69');

    await client.call('emulate/setOffline', { offline: true });
    await expect.poll(() => shown(client, page.id, 'online')).toBe('offline');
    await expectBAPError(() => client.call('page/navigate', { url: h.url('links.html') }), ErrorCodes.NavigationFailed);
    await client.call('emulate/setOffline', { offline: false });
    await client.call('page/navigate', { url: h.url('links.html') });
    await client.close();
  });

  it('validates ranges', async () => {
    const client = await h.newClient();
    const e = await expectBAPError(() => client.call('emulate/setGeolocation', { latitude: 91, longitude: 0 }), ErrorCodes.InvalidParams);
    expect(e.error.message).toContain('params.latitude');
    await expectBAPError(() => client.call('emulate/setViewport', { width: 0, height: 10 }), ErrorCodes.InvalidParams);
    await client.close();
  });
});

describe('trace/start, trace/stop, observe/pdf', () => {
  it('records a Playwright trace zip of what happened in the context', async () => {
    const client = await h.newClient();
    await client.call('page/create', {});
    await client.call('trace/start', { name: 'login flow' });
    await expectBAPError(() => client.call('trace/start', {}), ErrorCodes.InvalidParams);
    await client.call('page/navigate', { url: h.url('form.html') });
    await client.call('action/fill', { selector: { type: 'label', value: 'Email' }, value: 'ada@example.com' });
    const trace = await client.call('trace/stop', {});
    const zip = Buffer.from(trace.data, 'base64');
    expect(trace.size).toBe(zip.length);
    expect(zip.subarray(0, 4).toString('hex')).toBe('504b0304');
    // The zip's file names are stored uncompressed: the viewer's entries are there.
    expect(zip.includes(Buffer.from('trace.trace'))).toBe(true);
    expect(zip.includes(Buffer.from('trace.network'))).toBe(true);
    await expectBAPError(() => client.call('trace/stop', {}), ErrorCodes.InvalidParams);
    await client.close();
  });

  it('prints a page to PDF with options', async () => {
    const client = await h.newClient();
    await client.call('page/navigate', { url: h.url('links.html') });
    const pdf = await client.call('observe/pdf', { options: { format: 'A4', landscape: true, margin: { top: '1cm', left: 20 }, printBackground: true } });
    const bytes = Buffer.from(pdf.data, 'base64');
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.size).toBe(bytes.length);
    const bad = await expectBAPError(() => client.call('observe/pdf', { options: { margin: { top: 'wide' } } }), ErrorCodes.InvalidParams);
    expect(bad.error.message).toContain('params.options.margin.top');
    await client.close();
  });
});
