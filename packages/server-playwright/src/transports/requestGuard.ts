import type { IncomingMessage } from 'node:http';

export interface GuardOptions {
  /** Origins (`scheme://host[:port]`) whose pages may connect; any other Origin is refused. */
  allowedOrigins: readonly string[];
  /** Host names the server answers to; empty: loopback names, and the bound address. */
  allowedHosts: readonly string[];
  /** The address the server is bound to. */
  boundHost: string;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
const WILDCARD = new Set(['0.0.0.0', '::', '']);

/**
 * Why a request must be refused before it reaches BAP, or null. A browser adds `Origin` to every
 * cross-origin WebSocket and fetch, so an unknown Origin is a web page trying to drive the
 * server; a `Host` naming another site is DNS rebinding (an attacker's name resolving to us).
 * Agents (Node, Python, the CLI) send no Origin and are not affected.
 */
function refusal(req: IncomingMessage, options: GuardOptions): string | null {
  const host = hostName(req.headers.host);
  if (host === null) return 'Missing or malformed Host header.';
  if (!hostAllowed(host, options)) return `Host "${host}" is not one this server answers to (DNS rebinding protection); see --allowed-host.`;
  const origin = req.headers.origin;
  if (origin !== undefined && !options.allowedOrigins.includes(normalizeOrigin(origin))) {
    return `Origin "${origin}" is not allowed to connect; see --allowed-origin.`;
  }
  return null;
}

function hostAllowed(host: string, options: GuardOptions): boolean {
  if (options.allowedHosts.length) return options.allowedHosts.some((h) => normalizeHost(h) === host);
  const bound = normalizeHost(options.boundHost);
  if (WILDCARD.has(bound)) return true;
  return LOOPBACK_NAMES.includes(host) || host === bound;
}

/** The host name of a Host header (`[::1]:9222` → `::1`), lowercased, without a trailing dot. */
function hostName(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(:\d{1,5})?$/i.exec(header.trim());
  return match ? normalizeHost(match[1]!) : null;
}

function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** `refusal` for one server's settings, its allowed origins normalized once. */
export function requestGuard(options: GuardOptions): (req: IncomingMessage) => string | null {
  const normalized = { ...options, allowedOrigins: options.allowedOrigins.map(normalizeOrigin) };
  return (req) => refusal(req, normalized);
}

export function normalizeOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin.toLowerCase();
  }
}
