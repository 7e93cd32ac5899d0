import { lookup } from 'node:dns/promises';
import { Agent, createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, isIP, type AddressInfo, type LookupFunction, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { DomainPolicy } from './domainPolicy.js';
import { knownAddresses, normalizeHost } from './policyHosts.js';

/** The header a refused plain-HTTP request's 403 carries, with the reason. */
export const BLOCKED_HEADER = 'x-bap-blocked';

/** Headers that describe one hop, not the message; never forwarded. */
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade',
]);

/** Where to connect: `lookup` answers with the addresses the policy admitted for `host`, and only those. */
type Destination = { host: string; port: number; lookup: LookupFunction };

/** How long a name's addresses are reused (ms): Chromium's own host cache keeps them about as long. */
const RESOLVED_TTL_MS = 30_000;
const RESOLVED_MAX = 1_000;

/**
 * An HTTP proxy on 127.0.0.1 that every browser context of a session sends all its traffic
 * through, so the domain policy holds for everything Chromium fetches: redirect hops, frames,
 * popups, workers, beacons, WebSockets. Plain HTTP is forwarded; https and ws(s) arrive as
 * CONNECT and are tunnelled. Names are resolved here and the address that was checked is the one
 * connected to, so DNS cannot answer differently in between.
 */
export class PolicyProxy {
  private readonly agent = new Agent({ keepAlive: true });
  private readonly sockets = new Set<Duplex>();
  private readonly resolved = new Map<string, { addresses: string[]; until: number }>();

  private constructor(
    private readonly server: Server,
    private readonly policy: DomainPolicy,
  ) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.forward(req, res).catch(() => res.destroy()));
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.tunnel(req, socket, head).catch(() => socket.destroy()));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head).catch(() => socket.destroy()));
    server.on('connection', (socket: Socket) => this.track(socket));
    server.on('clientError', (_error, socket: Duplex) => socket.destroy());
  }

  static async start(policy: DomainPolicy): Promise<PolicyProxy> {
    // No request timeout: uploads and event streams pass through for as long as the page wants.
    const server = createServer({ requestTimeout: 0, keepAliveTimeout: 30_000 });
    const proxy = new PolicyProxy(server, policy);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    return proxy;
  }

  /** `http://127.0.0.1:PORT`, for a context's `proxy.server`. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.agent.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A plain-HTTP request in absolute form, forwarded with its body streaming both ways. */
  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = absoluteUrl(req.url);
    if (!target) return badRequest(res);
    const destination = await this.destination(target.hostname, Number(target.port) || 80);
    if (!destination) return void res.destroy();
    if ('refusal' in destination) return refuse(res, destination.refusal);
    // A request without a body can be sent again when a kept-alive upstream socket turns out closed.
    const retryable = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
    const send = (attempt: number): void => {
      const upstream = request({
        ...destination,
        method: req.method,
        path: target.pathname + target.search,
        headers: { ...forwardedHeaders(req.headers), host: target.host },
        agent: this.agent,
      });
      upstream.on('response', (answer) => {
        try {
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, responseHeaders(answer.rawHeaders));
        } catch {
          return void upstream.destroy();
        }
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      });
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (retryable && attempt === 0 && upstream.reusedSocket && error.code === 'ECONNRESET' && !res.headersSent) return send(1);
        // The page sees the connection fail, as it would have without a proxy.
        res.destroy();
      });
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      if (retryable) upstream.end();
      else req.pipe(upstream);
    };
    send(0);
  }

  /** CONNECT host:port (https, ws, wss): answered 200 and tunnelled, or 403. */
  private async tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    const authority = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? '');
    if (!authority) return endRaw(client, 400, 'CONNECT needs host:port');
    const destination = await this.destination(authority[1]!, Number(authority[2]));
    if (destination && 'refusal' in destination) return endRaw(client, 403, destination.refusal);
    const upstream = await this.open(destination);
    if (!upstream) return endRaw(client, 502, `could not connect to ${req.url}`);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    splice(client, upstream, head);
  }

  /** A WebSocket handshake in absolute form (Chromium tunnels them, but any client may send one). */
  private async upgrade(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    const target = absoluteUrl(req.url);
    if (!target) return endRaw(client, 400, 'only absolute http:// URLs can be requested through this proxy');
    const destination = await this.destination(target.hostname, Number(target.port) || 80);
    if (destination && 'refusal' in destination) return endRaw(client, 403, destination.refusal);
    const upstream = await this.open(destination);
    if (!upstream) return void client.destroy();
    const lines = [`${req.method} ${target.pathname}${target.search} HTTP/1.1`, `host: ${target.host}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      if (!/^(host|proxy-.*)$/i.test(name)) lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
    }
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    splice(client, upstream, head);
  }

  /**
   * Where to connect for `hostname:port`, or why not; null when the name does not resolve. A
   * name refused as written is not even looked up; connections go only to the addresses the
   * policy admitted.
   */
  private async destination(hostname: string, port: number): Promise<Destination | { refusal: string } | null> {
    let host: string;
    try {
      host = normalizeHost(hostname);
    } catch {
      return { refusal: `"${hostname}" is not a host name` };
    }
    const early = this.policy.refusalOfHost(host);
    if (early) return { refusal: early };
    const addresses = knownAddresses(host) ?? (await this.resolve(host));
    if (!addresses.length) return null;
    const verdict = this.policy.admit(host, addresses);
    return 'refusal' in verdict ? verdict : { host, port, lookup: pinned(verdict.addresses) };
  }

  /** A name's addresses, from DNS or a recent answer; empty when it does not resolve. */
  private async resolve(host: string): Promise<string[]> {
    const cached = this.resolved.get(host);
    if (cached && cached.until > Date.now()) return cached.addresses;
    const addresses = await lookup(host, { all: true }).then((all) => all.map((a) => a.address), () => []);
    if (!addresses.length) return addresses;
    this.resolved.delete(host);
    this.resolved.set(host, { addresses, until: Date.now() + RESOLVED_TTL_MS });
    if (this.resolved.size > RESOLVED_MAX) this.resolved.delete(this.resolved.keys().next().value!);
    return addresses;
  }

  private open(destination: Destination | null): Promise<Socket | null> {
    if (!destination) return Promise.resolve(null);
    return new Promise((resolve) => {
      const socket = connect(destination);
      socket.once('connect', () => {
        this.track(socket);
        resolve(socket);
      });
      socket.on('error', () => resolve(null));
    });
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }
}

/** A `lookup` for net and http that answers with the given addresses (checked ones), never asking DNS. */
function pinned(addresses: readonly string[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, addresses.map((address) => ({ address, family: isIP(address) })));
    else callback(null, addresses[0]!, isIP(addresses[0]!));
  };
}

/** The request target as a URL when it is an absolute http:// one, else null. */
function absoluteUrl(target: string | undefined): URL | null {
  try {
    const url = new URL(target ?? '');
    return url.protocol === 'http:' && url.hostname ? url : null;
  } catch {
    return null;
  }
}

/** The request's end-to-end headers; Host is set from the target, whatever the request said. */
function forwardedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(String(headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim()));
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.has(name) && name !== 'host'));
}

/** The response's end-to-end headers, as a flat name/value list (repeated Set-Cookie kept); a forged block marker dropped. */
function responseHeaders(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && name !== BLOCKED_HEADER) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** Connects two sockets both ways; either closing closes the other. */
function splice(client: Duplex, upstream: Socket, head: Buffer): void {
  if (head.length) upstream.write(head);
  client.pipe(upstream).pipe(client);
  const end = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', end).on('close', end);
  upstream.on('error', end).on('close', end);
}

/** Header values are Latin-1; reasons are ASCII already, this keeps them so. */
function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The 403 a refused plain-HTTP request gets: a page saying why, and the reason in a header. */
function refuse(res: ServerResponse, reason: string): void {
  res.req.resume();
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Blocked by the domain policy</title></head><body><h1>Blocked by the domain policy</h1><p>${escapeHtml(reason)}</p></body></html>`;
  res.writeHead(403, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    [BLOCKED_HEADER]: headerSafe(reason),
  });
  res.end(body);
}

function badRequest(res: ServerResponse): void {
  res.req.resume();
  res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' });
  res.end('Only absolute http:// URLs can be requested through this proxy.');
}

/** Answers a CONNECT or upgrade on the raw socket and closes it. */
function endRaw(socket: Duplex, status: 400 | 403 | 502, reason: string): void {
  const text = { 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' }[status];
  const blocked = status === 403 ? `${BLOCKED_HEADER}: ${headerSafe(reason)}\r\n` : '';
  socket.end(`HTTP/1.1 ${status} ${text}\r\n${blocked}content-length: 0\r\nconnection: close\r\n\r\n`);
}
