import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BapMcpServer } from '@browseragentprotocol/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

const FIXTURES = new URL('./fixtures/', import.meta.url);

/** Serves `test/fixtures/` on 127.0.0.1, port 0, remembering the Host of every request. */
export class Fixtures {
  private constructor(
    private readonly server: Server,
    readonly hosts: string[],
  ) {}

  static async start(): Promise<Fixtures> {
    const hosts: string[] = [];
    const server = createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      const path = new URL(req.url ?? '/', 'http://fixtures').pathname.slice(1);
      readFile(new URL(path, FIXTURES)).then(
        (body) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(body),
        () => res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new Fixtures(server, hosts);
  }

  /** A fixture page under `host` (`*.localhost` names reach this server too). */
  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${(this.server.address() as AddressInfo).port}/${path}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** An MCP client connected to a new session of `mcp` over the SDK's in-memory pair. */
export async function connect(mcp: BapMcpServer, capabilities: ClientCapabilities = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'mcp-test', version: '1.0.0' }, { capabilities });
  await mcp.session().connect(serverSide);
  await client.connect(clientSide);
  return client;
}

export interface Reply {
  text: string;
  isError: boolean;
  result: CallToolResult;
}

/** Calls a tool and joins its text content; a tool error is a reply, a protocol error throws. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Reply> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  return { text, isError: result.isError === true, result };
}

/** The ref a line of a result gives the element `role "name"`, as a model would pick it. */
export function refOf(text: string, role: string, name: string): string {
  const ref = new RegExp(`^(?:[+~] )?(@\\S+) ${role} ${JSON.stringify(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm').exec(text)?.[1];
  expect(ref, `${role} "${name}" in:\n${text}`).toBeDefined();
  return ref!;
}
