import type { Command } from 'commander';
import { errorMessage, hostPort, integerIn } from '../options.js';

interface ServeFlags {
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
  quiet?: boolean;
}

async function serve(flags: ServeFlags): Promise<void> {
  // Loaded here, not at the top: `bap info` and `bap connect` should not pay for Playwright and pino.
  const { startServer } = await import('@browseragentprotocol/server-playwright');
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      host: flags.host,
      port: flags.port,
      headless: !flags.headed,
      ...(flags.browserPath === undefined ? {} : { chromiumPath: flags.browserPath }),
      ...(flags.maxMessageSize === undefined ? {} : { maxMessageBytes: flags.maxMessageSize }),
      ...(flags.maxContexts === undefined ? {} : { maxContexts: flags.maxContexts }),
      ...(flags.maxPagesPerContext === undefined ? {} : { maxPagesPerContext: flags.maxPagesPerContext }),
      ...(flags.sessionGrace === undefined ? {} : { sessionGraceMs: flags.sessionGrace }),
      ...(flags.maxStreams === undefined ? {} : { maxStreams: flags.maxStreams }),
      ...(flags.allowedOrigin === undefined ? {} : { allowedOrigins: flags.allowedOrigin }),
      ...(flags.allowedHost === undefined ? {} : { allowedHosts: flags.allowedHost }),
      ...(flags.uploadDir === undefined ? {} : { uploadDirs: flags.uploadDir }),
      ...(flags.quiet ? { logger: false as const } : {}),
    });
  } catch (error) {
    process.stderr.write(`bap serve: cannot start the server: ${errorMessage(error).split('\n')[0]}\n`);
    process.exit(1);
  }
  const { port } = server;
  process.stdout.write(
    `BAP server ready on ${hostPort('ws', flags.host, port)} (health: ${hostPort('http', flags.host, port)}/health)\n`,
  );
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
    .option('--allowed-origin <origin>', 'an origin whose web pages may connect, e.g. http://localhost:3000 (repeatable; default none)', (v: string, all: string[] = []) => [...all, v])
    .option('--allowed-host <name>', 'a Host name requests may use (repeatable; default loopback names and the bound address)', (v: string, all: string[] = []) => [...all, v])
    .option('--upload-dir <dir>', 'a directory action/upload may read paths from (repeatable; default none)', (dir: string, all: string[] = []) => [...all, dir])
    .option('--quiet', 'no logs on stderr')
    .addHelpText('after', '\nPrints one line when ready:\n  BAP server ready on ws://127.0.0.1:9222 (health: http://127.0.0.1:9222/health)\nStops cleanly on SIGINT or SIGTERM.')
    .action(serve);
}
