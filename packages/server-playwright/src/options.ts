import type { Logger } from 'pino';
import type { ApprovalConfig, SecretsFile, TokenGrant } from '@browseragentprotocol/protocol';

export interface ServerOptions {
  /** Interface to bind; loopback by default. */
  host?: string;
  /** Port for WebSocket and `GET /health`; 9222 by default, 0 for any free port. */
  port?: number;
  /** Run Chromium headless (default true). */
  headless?: boolean;
  /** Chromium executable; default: $BAP_CHROMIUM_PATH, /usr/bin/chromium, Playwright's cache. */
  chromiumPath?: string;
  /**
   * Largest accepted message in bytes (default 16 MiB). Larger ones get -32600, up to four times
   * the limit; beyond that the socket is closed with 1009 (message too big).
   */
  maxMessageBytes?: number;
  /** Largest batch array (default 100). */
  maxBatchSize?: number;
  /** Most pages one session may hold open (default 50). */
  maxPages?: number;
  /** Most browser contexts one session may hold, the default one included (default 10). */
  maxContexts?: number;
  /** Most pages one context may hold (default 20). */
  maxPagesPerContext?: number;
  /** Largest total size of the files of one action/upload, in bytes (default 10 MiB). */
  maxUploadBytes?: number;
  /** Directories action/upload and action/armFileChooser may read `paths` from (default none: paths are refused). */
  uploadDirs?: string[];
  /**
   * Let page/evaluate (REST: `/act {kind: "evaluate"}`) run page script, for tokens with the
   * `eval` scope (default false: refused with -32003 whatever the scope).
   */
  allowEvaluate?: boolean;
  /**
   * How long a session opened with a sessionId outlives a dropped connection, waiting to be
   * resumed, in ms (default 60,000; 0 ends it at once).
   */
  sessionGraceMs?: number;
  /** Most streams one connection may have running at once (default 3). */
  maxStreams?: number;
  /** A stream not delivered within this many ms ends with stream/error (default 60,000). */
  streamTimeoutMs?: number;
  /** Default timeout of actions and observations in ms (default 10,000). */
  actionTimeout?: number;
  /** Default timeout of navigations in ms (default 30,000). */
  navigationTimeout?: number;
  /**
   * Dispatch input directly when the target is already actionable, checked in one round trip;
   * otherwise, and when this is false, actions go through Playwright's auto-waiting (default true).
   * See docs/fast-actions.md.
   */
  fastActions?: boolean;
  /**
   * Origins whose web pages may connect (e.g. an app embedding a BAP client). Default none: a
   * request carrying any Origin header is refused with 403.
   */
  allowedOrigins?: string[];
  /**
   * Host names requests may address (DNS rebinding protection). Default: loopback names and the
   * bound address; any name when bound to a wildcard address.
   */
  allowedHosts?: string[];
  /**
   * Accepted tokens (token → {name, scopes, allowedDomains?, expiresAt?}). Clients send one as
   * `?token=`, `Authorization: Bearer` or `X-BAP-Token`. Default none: only loopback clients may
   * connect, with every scope, and binding a non-loopback address is refused.
   */
  tokens?: Record<string, TokenGrant>;
  /** Hosts pages may reach, for every context (default: any host not blocked). */
  allowedDomains?: string[];
  /** Hosts pages may never reach (cloud metadata addresses are always blocked). */
  blockedDomains?: string[];
  /** Secrets agents may type as `{{secret:NAME}}` without ever seeing them. */
  secrets?: SecretsFile;
  /** Regular expressions whose matches are redacted from replies, notifications, logs and the audit log. */
  redactPatterns?: string[];
  /** Human approval of sensitive actions (default: disabled). */
  approval?: ApprovalConfig;
  /** Audit log: one JSON line per request and agent/act step (default: none). */
  audit?: { path: string; maxBytes?: number; maxFiles?: number };
  /** Serve wss:// and https:// with this PEM certificate and key. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Requests per second per client (token, or address without tokens), bursts up to twice (default 100). */
  requestsPerSecond?: number;
  /** Screenshots per minute per client (default 120). */
  screenshotsPerMinute?: number;
  /** Open connections per remote address (default 32). */
  maxConnectionsPerIp?: number;
  /** Approvals one session may have waiting at once (default 10). */
  maxPendingApprovals?: number;
  /** network/intercept rules one context may hold (default 50). */
  maxSubscriptions?: number;
  /** Notifications per second per page; the rest are dropped and counted (default 500). */
  maxEventsPerSecond?: number;
  /** Most element refs one snapshot may hold (default 50,000). */
  maxRefs?: number;
  /** Validate every result against the protocol schema before replying (tests turn this on). */
  validateResults?: boolean;
  /** A pino logger; false for silence. Default: info level to stderr. */
  logger?: Logger | false;
}

type Optional = 'chromiumPath' | 'logger' | 'tokens' | 'audit' | 'tls' | 'approval';
export type ResolvedServerOptions = Required<Omit<ServerOptions, Optional>> & {
  chromiumPath: string | undefined;
  /** Undefined: no tokens (loopback only). */
  tokens: Record<string, TokenGrant> | undefined;
  audit: ServerOptions['audit'];
  tls: ServerOptions['tls'];
  approval: ApprovalConfig | undefined;
  logger: Logger;
};
