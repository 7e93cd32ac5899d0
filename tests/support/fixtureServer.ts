import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

const MAX_SLOW_MS = 60_000;
const MAX_DOWNLOAD_BYTES = 64 * 1024 * 1024;

/** The bytes `/download?size=N` sends: byte i is `i % 251`, so content and length are checkable. */
export function downloadBytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = i % 251;
  return bytes;
}

/**
 * Static server for `tests/fixtures/` on 127.0.0.1, port 0, with a few dynamic routes:
 * - `/slow?ms=N`: an HTML page sent after N ms;
 * - `/redirect?to=URL`: 302 to URL (relative URLs resolve against this server);
 * - `/hold?id=X`: an event stream kept open until the client goes away; `openHolds(X)` counts them,
 *   which tells a test whether the page that opened it is still alive;
 * - `/download?name=F&size=N`: N bytes (byte i is `i % 251`) sent as the attachment F; with
 *   `&cut=1` the connection is dropped halfway, so the download fails;
 * - `/echo`: JSON describing the request as received (method, url, headers, body).
 */
export class FixtureServer {
  private readonly server: Server;
  private readonly holds = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private baseUrl = '';

  private constructor() {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(): Promise<FixtureServer> {
    const fixture = new FixtureServer();
    await new Promise<void>((resolve, reject) => {
      fixture.server.once('error', reject);
      fixture.server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = fixture.server.address() as AddressInfo;
    fixture.baseUrl = `http://127.0.0.1:${port}`;
    return fixture;
  }

  /** `http://127.0.0.1:PORT`, no trailing slash. */
  get origin(): string {
    return this.baseUrl;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Absolute URL of a fixture path such as `form.html` or `/slow?ms=500`. */
  url(path: string): string {
    return new URL(path, `${this.baseUrl}/`).toString();
  }

  /** How many `/hold?id=…` streams with this id are open right now. */
  openHolds(id: string): number {
    return this.holds.get(id) ?? 0;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    switch (url.pathname) {
      case '/slow':
        return this.slow(url, req, res);
      case '/redirect':
        return this.redirect(url, res);
      case '/hold':
        return this.hold(url, req, res);
      case '/download':
        return this.download(url, res);
      case '/echo':
        return this.echo(url, req, res);
      case '/inline':
        // `/inline?html=…`: a page made up by the test (data: URLs are refused by the domain policy).
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return void res.end(url.searchParams.get('html') ?? '');
      default:
        return this.file(url, res);
    }
  }

  private slow(url: URL, req: IncomingMessage, res: ServerResponse): void {
    const ms = Math.min(Math.max(Number(url.searchParams.get('ms')) || 0, 0), MAX_SLOW_MS);
    const timer = setTimeout(() => {
      res.writeHead(200, { 'content-type': CONTENT_TYPES['.html']!, 'cache-control': 'no-store' });
      res.end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Slow ${ms}</title></head>` +
          `<body><h1>Slow response</h1><p id="slow-ms">Answered after ${ms} ms</p></body></html>`,
      );
    }, ms);
    req.on('close', () => clearTimeout(timer));
  }

  private redirect(url: URL, res: ServerResponse): void {
    const to = url.searchParams.get('to');
    if (!to) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('missing ?to=');
      return;
    }
    res.writeHead(302, { location: new URL(to, `${this.baseUrl}/`).toString(), 'cache-control': 'no-store' });
    res.end();
  }

  private hold(url: URL, req: IncomingMessage, res: ServerResponse): void {
    const id = url.searchParams.get('id') ?? 'anonymous';
    this.holds.set(id, this.openHolds(id) + 1);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    // `retry` far in the future: a page whose stream broke should not reopen it and look alive.
    res.write('retry: 600000\n\n');
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 1_000);
    req.socket.on('close', () => {
      clearInterval(heartbeat);
      this.holds.set(id, this.openHolds(id) - 1);
    });
  }

  private download(url: URL, res: ServerResponse): void {
    const name = url.searchParams.get('name') ?? 'download.bin';
    const size = Math.min(Math.max(Number(url.searchParams.get('size')) || 0, 0), MAX_DOWNLOAD_BYTES);
    const bytes = downloadBytes(size);
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${name.replace(/["\\]/g, '_')}"`,
      'content-length': size,
      'cache-control': 'no-store',
    });
    if (url.searchParams.get('cut') !== '1') {
      res.end(bytes);
      return;
    }
    res.write(bytes.subarray(0, Math.floor(size / 2)));
    setTimeout(() => res.destroy(), 100);
  }

  private async echo(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    res.writeHead(200, { 'content-type': CONTENT_TYPES['.json']!, 'cache-control': 'no-store' });
    res.end(JSON.stringify({ method: req.method, url: url.pathname + url.search, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }));
  }

  private async file(url: URL, res: ServerResponse): Promise<void> {
    const relative = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '');
    const path = join(FIXTURES_DIR, relative === '' ? 'index.html' : relative);
    if (!path.startsWith(FIXTURES_DIR) || path.includes(`${sep}..${sep}`)) {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('forbidden');
      return;
    }
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Not found</title><h1>Not found</h1>');
      return;
    }
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
      'content-length': info.size,
      'cache-control': 'no-store',
    });
    createReadStream(path).pipe(res);
  }
}
