import { InvalidArgumentError, type Command } from 'commander';
import { errorMessage, integerIn } from '../options.js';
import { collect, collectList, securityOptions, type SecurityFlags } from '../serverFlags.js';

interface McpFlags extends Pick<SecurityFlags, 'secretsFile' | 'approvalFile' | 'auditLog'> {
  url?: string;
  token?: string;
  port?: number;
  host: string;
  allowedHost?: string[];
  allowedOrigin?: string[];
  slim?: boolean;
  caps?: string[];
  scopes?: string[];
  allowedDomains?: string[];
  blockedDomains?: string[];
  redact?: string[];
  uploadDir?: string[];
  headed?: boolean;
  browserPath?: string;
}

const CAPABILITIES = ['evaluate', 'storage', 'network'] as const;
type Capability = (typeof CAPABILITIES)[number];

function capabilities(value: string, all: string[] = []): string[] {
  const list = collectList(value, all);
  const unknown = list.find((c) => !(CAPABILITIES as readonly string[]).includes(c));
  if (unknown) throw new InvalidArgumentError(`unknown capability "${unknown}"; choose from ${CAPABILITIES.join(', ')}`);
  return list;
}

/** Flags that configure the in-process engine; with --url the BAP server's own settings apply. */
const ENGINE_FLAGS = ['scopes', 'allowedDomains', 'blockedDomains', 'redact', 'uploadDir', 'headed', 'browserPath', 'secretsFile', 'approvalFile', 'auditLog'] as const;

async function mcp(flags: McpFlags): Promise<void> {
  const { runStdio, serveMcpHttp } = await import('@browseragentprotocol/mcp');
  const http = flags.port !== undefined;
  // The engine logs to stderr (stdout carries MCP over stdio): warnings and worse, unless BAP_LOG_LEVEL says otherwise.
  process.env.BAP_LOG_LEVEL ??= 'warn';
  try {
    if (flags.url) {
      const misplaced = ENGINE_FLAGS.find((f) => flags[f] !== undefined);
      if (misplaced) throw new Error(`--${misplaced.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} configures the in-process engine; with --url, configure the BAP server instead`);
    }
    const { secrets, approval, audit } = securityOptions(flags, process.env);
    const server = Object.fromEntries(
      Object.entries({
        headless: !flags.headed,
        chromiumPath: flags.browserPath,
        allowedDomains: flags.allowedDomains,
        blockedDomains: flags.blockedDomains,
        redactPatterns: flags.redact,
        uploadDirs: flags.uploadDir,
        secrets,
        approval,
        audit,
      }).filter(([, v]) => v !== undefined),
    );
    const options = {
      url: flags.url,
      token: flags.token ?? process.env.BAP_TOKEN,
      server,
      scopes: flags.scopes,
      slim: flags.slim,
      caps: flags.caps as Capability[] | undefined,
    };
    if (http) {
      const running = await serveMcpHttp({ ...options, port: flags.port!, host: flags.host, allowedHosts: flags.allowedHost, allowedOrigins: flags.allowedOrigin });
      process.stdout.write(`BAP MCP server ready on ${running.url}\n`);
      const stop = () => void running.close().then(() => process.exit(0), () => process.exit(1));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    } else {
      const running = await runStdio(options);
      const stop = () => void running.close().then(() => process.exit(0), () => process.exit(1));
      process.stdin.once('end', stop);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    }
  } catch (error) {
    process.stderr.write(`bap mcp: cannot start: ${errorMessage(error).split('\n')[0]}\n`);
    process.exit(1);
  }
}

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('Run BAP as an MCP server for Claude, Cursor, VS Code and other MCP hosts (stdio, or Streamable HTTP with --port).')
    .option('--url <ws-url>', 'use a running BAP server instead of the engine in this process')
    .option('--token <token>', 'token for --url (default $BAP_TOKEN)')
    .option('--port <port>', 'serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (0 picks a free port)', integerIn(0, 65_535))
    .option('--host <host>', 'interface for --port', '127.0.0.1')
    .option('--allowed-host <name>', 'a Host name HTTP requests may use besides loopback names (repeatable)', collect)
    .option('--allowed-origin <origin>', 'an Origin whose web pages may call over HTTP (repeatable; default none)', collect)
    .option('--slim', 'only navigate, observe, act, extract and screenshot')
    .option('--caps <list>', `turn on tools that are off by default: ${CAPABILITIES.join(', ')} (comma-separated)`, capabilities)
    .option('--scopes <list>', 'scopes or profiles the tools get (readonly, standard, full, privileged, page:*, …; default all)', collectList)
    .option('--allowed-domains <list>', 'hosts pages may reach: example.com, *.example.com, IPs, CIDRs (comma-separated; default any)', collectList)
    .option('--blocked-domains <list>', 'hosts pages may never reach (comma-separated)', collectList)
    .option('--secrets-file <path>', 'JSON {NAME: value | {value, domains}} tools type as {{secret:NAME}} (also $BAP_SECRET_<NAME>)')
    .option('--approval-file <path>', 'JSON approval rules; approvals are asked through MCP elicitation')
    .option('--audit-log <path>', 'append one JSON line per tool step to this file')
    .option('--redact <regex>', 'a pattern redacted from every result (repeatable)', collect)
    .option('--upload-dir <dir>', 'a directory the upload tool may read files from (repeatable; default none)', collect)
    .option('--headed', 'show the browser window')
    .option('--browser-path <path>', 'Chromium executable (default: $BAP_CHROMIUM_PATH, /usr/bin/chromium)')
    .addHelpText('after', '\nExamples:\n  bap mcp\n  bap mcp --slim --allowed-domains example.com\n  bap mcp --port 8931\n  bap mcp --url ws://127.0.0.1:9222 --token $BAP_TOKEN')
    .action(mcp);
}
