import { pino } from 'pino';
import type { ResolvedServerOptions, ServerOptions } from './options.js';
import { listen, type RunningServer } from './transports/server.js';
import { embed, type EmbeddedServer } from './transports/inProcess.js';

export type { ServerOptions } from './options.js';
export type { RunningServer } from './transports/server.js';
export type { EmbeddedServer, InProcessLink } from './transports/inProcess.js';
export type { Principal } from './security/tokens.js';
export { SERVER_NAME, SERVER_VERSION } from './version.js';
export { findChromium } from './engine/chromium.js';
export { requestGuard, type GuardOptions } from './transports/requestGuard.js';

/** Starts a BAP server: WebSocket JSON-RPC and `GET /health` on one port. */
export function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  return listen(resolve(options));
}

/**
 * The same server without a port, for hosts running in this process (the MCP server): each
 * `connect()` is a new client connection through the same gate, limits and audit.
 */
export function embedServer(options: Omit<ServerOptions, 'host' | 'port' | 'tls'> = {}): EmbeddedServer {
  return embed(resolve(options));
}

function resolve(options: ServerOptions): ResolvedServerOptions {
  const logger =
    options.logger === false
      ? pino({ level: 'silent' })
      : (options.logger ?? pino({ level: process.env.BAP_LOG_LEVEL ?? 'info' }, pino.destination(2)));
  return {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 9222,
    headless: options.headless ?? true,
    chromiumPath: options.chromiumPath,
    maxMessageBytes: options.maxMessageBytes ?? 16 * 1024 * 1024,
    maxBatchSize: options.maxBatchSize ?? 100,
    maxPages: options.maxPages ?? 50,
    maxContexts: options.maxContexts ?? 10,
    maxPagesPerContext: options.maxPagesPerContext ?? 20,
    maxUploadBytes: options.maxUploadBytes ?? 10 * 1024 * 1024,
    uploadDirs: options.uploadDirs ?? [],
    allowEvaluate: options.allowEvaluate ?? false,
    sessionGraceMs: options.sessionGraceMs ?? 60_000,
    maxStreams: options.maxStreams ?? 3,
    allowedOrigins: options.allowedOrigins ?? [],
    allowedHosts: options.allowedHosts ?? [],
    streamTimeoutMs: options.streamTimeoutMs ?? 60_000,
    actionTimeout: options.actionTimeout ?? 10_000,
    navigationTimeout: options.navigationTimeout ?? 30_000,
    fastActions: options.fastActions ?? true,
    tokens: options.tokens,
    allowedDomains: options.allowedDomains ?? [],
    blockedDomains: options.blockedDomains ?? [],
    secrets: options.secrets ?? {},
    redactPatterns: options.redactPatterns ?? [],
    approval: options.approval,
    audit: options.audit,
    tls: options.tls,
    requestsPerSecond: options.requestsPerSecond ?? 100,
    screenshotsPerMinute: options.screenshotsPerMinute ?? 120,
    maxConnectionsPerIp: options.maxConnectionsPerIp ?? 32,
    maxPendingApprovals: options.maxPendingApprovals ?? 10,
    maxSubscriptions: options.maxSubscriptions ?? 50,
    maxEventsPerSecond: options.maxEventsPerSecond ?? 500,
    maxRefs: options.maxRefs ?? 50_000,
    validateResults: options.validateResults ?? false,
    logger,
  };
}
