import type { Command } from 'commander';
import { errorMessage, integerIn } from '../options.js';
import { collect, securityOptions, type SecurityFlags } from '../serverFlags.js';

interface ServeFlags extends SecurityFlags {
  port: number;
  host: string;
  headed?: boolean;
  browserPath?: string;
  maxMessageSize?: number;
  maxContexts?: number;
  maxPagesPerContext?: number;
  sessionGrace?: number;
  maxStreams?: number;
  allowedOrigin?: string[];
  allowedHost?: string[];
  uploadDir?: string[];
  allowEvaluate?: boolean;
  quiet?: boolean;
  allowedDomain?: string[];
  blockedDomain?: string[];
  redact?: string[];
  requestsPerSecond?: number;
  screenshotsPerMinute?: number;
  maxConnectionsPerIp?: number;
  maxPendingApprovals?: number;
  maxSubscriptions?: number;
  maxEventsPerSecond?: number;
  maxRefs?: number;
  fastActions: boolean;
}

async function serve(flags: ServeFlags): Promise<void> {
  // Loaded here, not at the top: `bap info` and `bap connect` should not pay for Playwright and pino.
  const { startServer } = await import('@browseragentprotocol/server-playwright');
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    const options = {
      host: flags.host,
      port: flags.port,
      headless: !flags.headed,
      chromiumPath: flags.browserPath,
      maxMessageBytes: flags.maxMessageSize,
      maxContexts: flags.maxContexts,
      maxPagesPerContext: flags.maxPagesPerContext,
      sessionGraceMs: flags.sessionGrace,
      maxStreams: flags.maxStreams,
      allowedOrigins: flags.allowedOrigin,
      allowedHosts: flags.allowedHost,
      uploadDirs: flags.uploadDir,
      allowEvaluate: flags.allowEvaluate,
      allowedDomains: flags.allowedDomain,
      blockedDomains: flags.blockedDomain,
      redactPatterns: flags.redact,
      requestsPerSecond: flags.requestsPerSecond,
      screenshotsPerMinute: flags.screenshotsPerMinute,
      maxConnectionsPerIp: flags.maxConnectionsPerIp,
      maxPendingApprovals: flags.maxPendingApprovals,
      maxSubscriptions: flags.maxSubscriptions,
      maxEventsPerSecond: flags.maxEventsPerSecond,
      maxRefs: flags.maxRefs,
      fastActions: flags.fastActions,
      ...securityOptions(flags, process.env),
      ...(flags.quiet ? { logger: false as const } : {}),
    };
    // Unset flags leave the server's defaults in place; the server validates the files' contents.
    server = await startServer(Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Parameters<typeof startServer>[0]);
  } catch (error) {
    process.stderr.write(`bap serve: cannot start the server: ${errorMessage(error).split('\n')[0]}\n`);
    process.exit(1);
  }
  process.stdout.write(`BAP server ready on ${server.url} (health: ${server.httpUrl}/health)\n`);
  const stop = async () => {
    try {
      await server.close();
      process.exit(0);
    } catch (error) {
      process.stderr.write(`bap serve: error while closing: ${errorMessage(error)}\n`);
      process.exit(1);
    }
  };
  // `once`: a second Ctrl-C falls through to Node's default handler and kills a close that hangs.
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run a BAP server that drives Chromium through Playwright (WebSocket and GET /health on one port).')
    .option('--port <port>', 'port to listen on (0 picks a free one)', integerIn(0, 65_535), 9222)
    .option('--host <host>', 'interface to bind; keep the loopback default unless you add a token', '127.0.0.1')
    .option('--headed', 'show the browser window instead of running headless')
    .option('--browser-path <path>', 'Chromium executable (default: $BAP_CHROMIUM_PATH, /usr/bin/chromium, Playwright’s)')
    .option('--max-message-size <bytes>', 'largest accepted message in bytes (default 16 MiB)', integerIn(1, 2 ** 31))
    .option('--max-contexts <n>', 'most browser contexts per session (default 10)', integerIn(1, 1000))
    .option('--max-pages-per-context <n>', 'most pages per context (default 20)', integerIn(1, 1000))
    .option('--session-grace <ms>', 'how long a resumable session waits for its client to come back (default 60000)', integerIn(0, 86_400_000))
    .option('--max-streams <n>', 'most streams (stream: true results) one connection may run at once (default 3)', integerIn(1, 100))
    .option('--allowed-origin <origin>', 'an origin whose web pages may connect, e.g. http://localhost:3000 (repeatable; default none)', collect)
    .option('--allowed-host <name>', 'a Host name requests may use (repeatable; default loopback names and the bound address)', collect)
    .option('--upload-dir <dir>', 'a directory action/upload and action/armFileChooser may read paths from (repeatable; default none)', collect)
    .option('--allow-evaluate', 'let page/evaluate (REST /act evaluate) run page script for tokens with the eval scope (default: refused)')
    .option('--tokens-file <path>', 'JSON {token: {name, scopes, allowedDomains?, expiresAt?}} (or $BAP_TOKENS); without tokens only loopback clients may connect')
    .option('--allowed-domain <pattern>', 'a host pages may reach: example.com, *.example.com, an IP or CIDR (repeatable; default any)', collect)
    .option('--blocked-domain <pattern>', 'a host pages may never reach (repeatable; cloud metadata addresses always are)', collect)
    .option('--secrets-file <path>', 'JSON {NAME: value | {value, domains}} agents type as {{secret:NAME}} (also $BAP_SECRET_<NAME>)')
    .option('--redact <regex>', 'a pattern redacted from replies, events, logs and the audit log (repeatable)', collect)
    .option('--approval-file <path>', 'JSON approval config {mode, rules, defaultAction, timeout, includeScreenshot}')
    .option('--audit-log <path>', 'append one JSON line per request and agent/act step to this file')
    .option('--audit-max-bytes <n>', 'rotate the audit log at this size (default 10 MiB)', integerIn(1_024, 2 ** 40))
    .option('--audit-max-files <n>', 'rotated audit files kept (default 5)', integerIn(1, 1000))
    .option('--tls-cert <path>', 'PEM certificate: serve wss:// and https://')
    .option('--tls-key <path>', 'PEM private key for --tls-cert')
    .option('--requests-per-second <n>', 'requests per second per client, bursts up to twice (default 100)', integerIn(1, 1_000_000))
    .option('--screenshots-per-minute <n>', 'screenshots per minute per client (default 120)', integerIn(1, 1_000_000))
    .option('--max-connections-per-ip <n>', 'open connections per remote address (default 32)', integerIn(1, 100_000))
    .option('--max-pending-approvals <n>', 'approvals one session may have waiting (default 10)', integerIn(1, 10_000))
    .option('--max-subscriptions <n>', 'network/intercept rules per context (default 50)', integerIn(1, 10_000))
    .option('--max-events-per-second <n>', 'notifications per second per page; more are dropped and counted (default 500)', integerIn(1, 1_000_000))
    .option('--max-refs <n>', 'element refs one snapshot may hold (default 50000)', integerIn(1, 10_000_000))
    .option('--no-fast-actions', 'always use Playwright’s auto-waiting actions (docs/fast-actions.md)')
    .option('--quiet', 'no logs on stderr')
    .addHelpText('after', '\nPrints one line when ready:\n  BAP server ready on ws://127.0.0.1:9222 (health: http://127.0.0.1:9222/health)\nStops cleanly on SIGINT or SIGTERM.')
    .action(serve);
}
