import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CDPSession } from 'playwright-core';
import {
  BAPError,
  ErrorCodes,
  type Cookie,
  type MethodName,
  type MethodResult,
  type ParsedParams,
  type StorageState,
} from '@browseragentprotocol/protocol';
import type { Redactor } from '../security/redactor.js';
import type { ContextEntry } from './contextEntry.js';
import { defined, invalidField, toBAPError } from './errors.js';
import type { PageHandle } from './pageHandle.js';
import { redactTrace } from './secrets.js';

type P<M extends MethodName> = ParsedParams<M>;
type Empty = Record<string, never>;

/** Storage, emulation and tracing: state that belongs to a context (or, for two calls, a page). */

export async function getState({ context }: ContextEntry): Promise<MethodResult<'storage/getState'>> {
  const state = await context.storageState();
  return { cookies: state.cookies as Cookie[], origins: state.origins.map(({ origin, localStorage }) => ({ origin, localStorage })) };
}

export async function setState({ context }: ContextEntry, state: StorageState): Promise<Empty> {
  await guard('params.state', () => context.setStorageState(state as Parameters<typeof context.setStorageState>[0]));
  return {};
}

export async function getCookies({ context }: ContextEntry, urls: string[] | undefined): Promise<MethodResult<'storage/getCookies'>> {
  const cookies = await guard('params.urls', () => (urls ? context.cookies(urls) : context.cookies()));
  return { cookies: cookies as Cookie[] };
}

export async function setCookies({ context }: ContextEntry, cookies: P<'storage/setCookies'>['cookies']): Promise<Empty> {
  await guard('params.cookies', () => context.addCookies(cookies.map((c) => defined(c) as never)));
  return {};
}

export async function clearCookies({ context }: ContextEntry, p: P<'storage/clearCookies'>): Promise<MethodResult<'storage/clearCookies'>> {
  const matching = await guard('params.urls', () => (p.urls ? context.cookies(p.urls) : context.cookies()));
  const doomed = matching.filter(
    (c) => (p.name === undefined || c.name === p.name) && (p.domain === undefined || c.domain === p.domain) && (p.path === undefined || c.path === p.path),
  );
  if (doomed.length === matching.length && !p.urls && !p.name && !p.domain && !p.path) {
    await context.clearCookies();
  } else {
    for (const c of doomed) await context.clearCookies({ name: c.name, domain: c.domain, path: c.path });
  }
  return { cleared: doomed.length };
}

export async function setViewport(h: PageHandle, p: P<'emulate/setViewport'>): Promise<Empty> {
  await h.page.setViewportSize({ width: p.width, height: p.height });
  if (p.deviceScaleFactor !== undefined || p.isMobile !== undefined || p.hasTouch !== undefined) {
    const cdp = await h.cdp();
    await cdp.send('Emulation.setDeviceMetricsOverride', {
      width: p.width,
      height: p.height,
      deviceScaleFactor: p.deviceScaleFactor ?? 0,
      mobile: p.isMobile ?? false,
    });
    if (p.hasTouch !== undefined) await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: p.hasTouch });
  }
  return {};
}

export async function setUserAgent(h: PageHandle, p: P<'emulate/setUserAgent'>): Promise<Empty> {
  const cdp: CDPSession = await h.cdp();
  const override: { userAgent: string; platform?: string; acceptLanguage?: string } = { userAgent: p.userAgent };
  if (p.platform !== undefined) override.platform = p.platform;
  if (p.acceptLanguage !== undefined) override.acceptLanguage = p.acceptLanguage;
  await cdp.send('Emulation.setUserAgentOverride', override);
  return {};
}

export async function setGeolocation({ context }: ContextEntry, p: P<'emulate/setGeolocation'>): Promise<Empty> {
  const position: { latitude: number; longitude: number; accuracy?: number } = { latitude: p.latitude, longitude: p.longitude };
  if (p.accuracy !== undefined) position.accuracy = p.accuracy;
  await context.grantPermissions(['geolocation']);
  await context.setGeolocation(position);
  return {};
}

export async function setOffline({ context }: ContextEntry, offline: boolean): Promise<Empty> {
  await context.setOffline(offline);
  return {};
}

export async function startTrace(entry: ContextEntry, p: P<'trace/start'>): Promise<Empty> {
  if (entry.tracing) {
    throw new BAPError(ErrorCodes.InvalidParams, `A trace of context "${entry.id}" is already recording.`, {
      recoveryHint: 'Call trace/stop first.',
    });
  }
  const options: { screenshots: boolean; snapshots: boolean; sources: boolean; title?: string } = {
    screenshots: p.screenshots ?? true,
    snapshots: p.snapshots ?? true,
    sources: p.sources ?? false,
  };
  if (p.name !== undefined) options.title = p.name;
  await entry.context.tracing.start(options);
  entry.tracing = true;
  return {};
}

/**
 * Ends the context's trace and returns its zip with no field secret in it (see redactTrace):
 * `redactor` is the session's, which knows every value typed into a password or card field;
 * without it, only the values still on the context's pages are taken out.
 */
export async function stopTrace(entry: ContextEntry, redactor: Redactor): Promise<MethodResult<'trace/stop'>> {
  if (!entry.tracing) {
    throw new BAPError(ErrorCodes.InvalidParams, `No trace of context "${entry.id}" is recording.`, {
      recoveryHint: 'Call trace/start first.',
    });
  }
  const dir = await mkdtemp(join(tmpdir(), 'bap-trace-'));
  try {
    const path = join(dir, 'trace.zip');
    entry.tracing = false;
    await entry.context.tracing.stop({ path });
    const data = Buffer.from(await redactTrace(await readFile(path), entry.context.pages(), redactor));
    return { data: data.toString('base64'), size: data.length, contentType: 'application/zip' };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs a Playwright call whose failures are caused by the given field's contents. */
async function guard<T>(field: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const mapped = toBAPError(error);
    throw mapped.code === ErrorCodes.InternalError || mapped.code === ErrorCodes.ServerError ? invalidField(field, error) : mapped;
  }
}
