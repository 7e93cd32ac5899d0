import { ScopeSchema, expandScopes } from '@browseragentprotocol/protocol';
import type { ServerOptions } from '@browseragentprotocol/server-playwright';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { inProcessBackend, remoteBackend, type Backend } from './backend.js';
import { McpSession } from './session.js';
import { selectTools, type Capability, type Tool } from './tools/index.js';

export interface McpOptions {
  /** A running BAP server to use (`ws://…`); default: the engine in this process. */
  url?: string;
  /** Token for `url`. */
  token?: string;
  /** Options of the in-process engine: domain policy, secrets, approvals, audit, limits… */
  server?: Omit<ServerOptions, 'host' | 'port' | 'tls'>;
  /** Scopes the in-process engine grants the tools (profiles or scopes; default every scope). */
  scopes?: string[];
  /** Only navigate, observe, act, extract and screenshot. */
  slim?: boolean;
  /** Tools that are off by default: `evaluate`, `storage`, `network`. */
  caps?: Capability[];
}

/** The tools and the backend every session of one MCP server shares. */
export class BapMcpServer {
  readonly tools: Tool[];
  private readonly backend: Backend;
  private readonly sessions = new Set<McpSession>();

  constructor(options: McpOptions = {}) {
    this.tools = selectTools(options);
    if (options.url) {
      this.backend = remoteBackend(options.url, options.token);
    } else {
      // evaluate is a tool capability here: turning it on is the user's consent to page script.
      const server = { ...options.server, allowEvaluate: options.server?.allowEvaluate ?? options.caps?.includes('evaluate') ?? false };
      const principal = options.scopes ? { name: 'mcp', scopes: expandScopes(parseScopes(options.scopes)), allowedDomains: undefined, expiresAt: undefined } : undefined;
      this.backend = inProcessBackend(server, principal);
    }
  }

  /** A session for one MCP client connection; closing it ends its BAP session and pages. */
  session(): McpSession {
    const session = new McpSession(this.backend, this.tools);
    this.sessions.add(session);
    session.server.onclose = () => {
      this.sessions.delete(session);
      void session.close();
    };
    return session;
  }

  private closing: Promise<void> | undefined;

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.sessions].map((s) => s.close()));
      await this.backend.close();
    })();
    return this.closing;
  }
}

function parseScopes(scopes: readonly string[]): string[] {
  return scopes.map((scope, i) => {
    const parsed = ScopeSchema.safeParse(scope);
    if (!parsed.success) throw new Error(`scopes[${i}]: "${scope}" is not a scope or scope profile (${parsed.error.issues[0]?.message ?? 'invalid'})`);
    return parsed.data;
  });
}

/** Serves one MCP client over stdin/stdout until it disconnects. */
export async function runStdio(options: McpOptions = {}): Promise<BapMcpServer> {
  const mcp = new BapMcpServer(options);
  const session = mcp.session();
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await session.connect(transport);
  // stdin ending is the client going away: StdioServerTransport does not notice it by itself.
  process.stdin.once('end', () => void transport.close());
  void closed.then(() => mcp.close());
  return mcp;
}
