import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { BAPError, ErrorCodes, PROTOCOL_VERSION } from '@browseragentprotocol/protocol';
import type { ResolvedServerOptions } from '../options.js';
import { RpcConnection } from '../rpc/connection.js';
import { SERVER_VERSION } from '../version.js';
import { ServerCore } from './serverCore.js';
import type { Caller } from '../rpc/gate.js';
import { HttpApi } from './httpApi.js';
import { requestGuard } from './requestGuard.js';

export interface RunningServer {
  /** `ws://host:port` for agents. */
  url: string;
  /** `http://host:port` (serves `GET /health`). */
  httpUrl: string;
  port: number;
  /** Live connections, kept (resumable) sessions, and what the browsers hold. */
  stats(): Promise<{ connections: number; resumableSessions: number; browsers: number; contexts: number; pages: number }>;
  close(): Promise<void>;
}

/**
 * One port: `GET /health` over HTTP, JSON-RPC over WebSocket. Frames larger than the message
 * limit (up to four times it) still get a -32600 reply; beyond that the socket closes with 1009.
 */
export async function listen(options: ResolvedServerOptions): Promise<RunningServer> {
  const core = new ServerCore(options);
  const { security, sessions } = core;
  const log = security.log;
  const api = new HttpApi(sessions, options, security);
  const connections = new Set<RpcConnection>();
  const http = options.tls ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, route) : createServer(route);
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes * 4, perMessageDeflate: false });

  const refusal = requestGuard({ allowedOrigins: options.allowedOrigins, allowedHosts: options.allowedHosts, boundHost: options.host });

  http.on('upgrade', (req, socket, head) => {
    const refused = refusal(req);
    const remote = req.socket.remoteAddress ?? 'unknown';
    if (refused) {
      log.warn({ remote, origin: req.headers.origin, host: req.headers.host }, refused);
      return refuseUpgrade(socket, 403, 'Forbidden', { error: 'forbidden', message: refused });
    }
    if (!security.connections.acquire(remote)) {
      const message = `Too many connections from ${remote}: at most ${options.maxConnectionsPerIp}.`;
      log.warn({ remote }, message);
      return refuseUpgrade(socket, 429, 'Too Many Requests', { error: 'too many connections', message, limit: options.maxConnectionsPerIp });
    }
    // Released when the socket goes, whether or not the upgrade succeeds.
    socket.once('close', () => security.connections.release(remote));
    const auth = security.tokens.authenticate(req);
    wss.handleUpgrade(req, socket, head, (ws) => {
      if ('refusal' in auth) {
        // Close code 1008 (policy violation) with the reason, as BAP clients expect.
        log.warn({ remote }, auth.refusal);
        ws.close(1008, auth.refusal.slice(0, 120));
        return;
      }
      accept(ws, req, { principal: auth.principal, remote });
    });
  });

  function accept(ws: WebSocket, req: IncomingMessage, caller: Caller): void {
    const connection = new RpcConnection(sessions, options, {
      send: (text) => {
        if (ws.readyState === ws.OPEN) ws.send(text);
      },
      close: (code, reason) => ws.close(code, reason),
      buffered: () => ws.bufferedAmount,
    }, security, caller);
    connections.add(connection);
    log.debug({ remote: req.socket.remoteAddress }, 'connection opened');
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        connection.reject(new BAPError(ErrorCodes.InvalidRequest, 'Invalid Request: binary frames are not accepted; send JSON text.'));
        return;
      }
      connection.receive(data.toString()).catch((error: unknown) => log.error({ err: error }, 'unhandled dispatch failure'));
    });
    ws.on('error', (error) => log.debug({ err: error }, 'socket error'));
    ws.on('close', () => {
      connections.delete(connection);
      log.debug('connection closed');
      connection.close().catch((error: unknown) => log.warn({ err: error }, 'closing session failed'));
    });
  }

  function route(req: IncomingMessage, res: ServerResponse): void {
    const refused = refusal(req);
    if (refused) return json(res, 403, { error: 'forbidden', message: refused });
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') {
      return json(res, 200, { status: 'ok', version: SERVER_VERSION, protocolVersion: PROTOCOL_VERSION });
    }
    api
      .handle(req, res)
      .then((handled) => {
        if (!handled) json(res, 404, { error: 'not found', hint: 'Connect a WebSocket to this address, or see GET /openapi.json for the HTTP routes.' });
      })
      .catch((error: unknown) => {
        log.error({ err: error }, 'HTTP request failed');
        if (!res.headersSent) json(res, 500, { error: 'internal error' });
      });
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const hostname = options.host.includes(':') ? `[${options.host}]` : options.host;
  const secure = options.tls ? 's' : '';
  return {
    url: `ws${secure}://${hostname}:${port}`,
    httpUrl: `http${secure}://${hostname}:${port}`,
    port,
    stats: async () => ({ connections: connections.size, ...(await core.stats()) }),
    close: async () => {
      await api.close();
      await shutdown(http, wss, connections);
      await core.close();
    },
  };
}

async function shutdown(http: Server, wss: WebSocketServer, connections: Set<RpcConnection>) {
  for (const ws of wss.clients) ws.close(1001, 'server shutting down');
  await Promise.all([...connections].map((c) => c.close().catch(() => {})));
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
}

function refuseUpgrade(socket: Duplex, status: number, text: string, body: unknown): void {
  const payload = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\nConnection: close\r\n\r\n${payload}`);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
