import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { requestGuard } from '@browseragentprotocol/server-playwright';
import { BapMcpServer, type McpOptions } from './mcpServer.js';

export interface McpHttpOptions extends McpOptions {
  /** Port (0: any free one). */
  port: number;
  /** Interface to bind (default loopback). */
  host?: string;
  /** Host names requests may address besides loopback names (DNS rebinding protection). */
  allowedHosts?: string[];
  /** Origins whose web pages may call; default none: a request with an Origin header is refused. */
  allowedOrigins?: string[];
}

export interface RunningMcpHttp {
  /** `http://host:port/mcp` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Largest request body accepted, in bytes. */
const MAX_BODY = 4 * 1024 * 1024;
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/**
 * MCP over Streamable HTTP at `/mcp`: one MCP session (and one BAP session) per client,
 * named by the `Mcp-Session-Id` header. Every request's Host and Origin are checked first, so a
 * web page cannot reach the server by DNS rebinding or a cross-site request.
 */
export async function serveMcpHttp(options: McpHttpOptions): Promise<RunningMcpHttp> {
  const mcp = new BapMcpServer(options);
  const transports = new Map<string, StreamableHTTPServerTransport>();
  // The BAP server's own guard; names given with --allowed-host come on top of the loopback ones here.
  const allowedHosts = options.allowedHosts?.length ? [...LOOPBACK_NAMES, ...options.allowedHosts] : [];
  const refusal = requestGuard({ allowedHosts, allowedOrigins: options.allowedOrigins ?? [], boundHost: options.host ?? '127.0.0.1' });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = refusal(req);
    if (refused) return reply(res, 403, refused);
    if ((req.url ?? '').split('?')[0] !== '/mcp') return reply(res, 404, 'Not found: the MCP endpoint is /mcp.');
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const transport = transports.get(id);
      if (!transport) return reply(res, 404, `Unknown or ended session ${id}: initialize a new one.`);
      return transport.handleRequest(req, res, req.method === 'POST' ? await readJson(req) : undefined);
    }
    if (req.method !== 'POST') return reply(res, 400, 'No Mcp-Session-Id header: POST an initialize request first.');
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return reply(res, 400, 'No Mcp-Session-Id header: the first request must be initialize.');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => void transports.set(sessionId, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await mcp.session().connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof BodyError) return reply(res, error.status, error.message);
      if (!res.headersSent) reply(res, 500, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const host = (options.host ?? '127.0.0.1').includes(':') ? `[${options.host}]` : (options.host ?? '127.0.0.1');
  return {
    url: `http://${host}:${port}/mcp`,
    port,
    close: async () => {
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => {})));
      await mcp.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new BodyError(413, `Request body over ${MAX_BODY} bytes.`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new BodyError(400, `Parse error: ${(error as Error).message}`);
  }
}

/** A JSON-RPC error body, as MCP clients expect from a refused HTTP request. */
function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: status === 403 ? -32001 : -32000, message }, id: null }));
}
