import type { BAPClient } from '@browseragentprotocol/client';
import { BAPError, ErrorCodes, formatZodError, type ApprovalRequired } from '@browseragentprotocol/protocol';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { askForApproval, type ApprovalOutcome } from './approvals.js';
import type { Backend } from './backend.js';
import { errorText, observationBody, stepLines, tabHeader, type ActStep, type Observation } from './pageReport.js';
import { pageResources, readPageResource } from './resources.js';
import type { Tool, ToolContext } from './tools/index.js';
import { publishedSchema, text } from './tools/tool.js';
import { MCP_SERVER_INFO } from './version.js';

/** Characters of what changed that an action returns; the rest is one observe away. */
const ACTION_BUDGET = 4_000;
/** Characters of a newly loaded page that navigate returns. */
const NAVIGATION_BUDGET = 8_000;
/** A queued dialog waits this long for the dialog tool, then is dismissed: the page never freezes. */
const DIALOG_WAIT_MS = 30_000;
/** Requests remembered per tab for the network tool. */
const NETWORK_LINES = 200;

const INSTRUCTIONS =
  'Browser tools. observe lists interactive elements with refs (@e5). target takes a ref, or role:button:Save, text:…, label:…, css:…. ' +
  'Page tools take tab (default: the active tab). Actions return what changed; results name the tab and any open dialog.';

/**
 * One MCP session: an MCP server over one transport, backed by its own BAP client (its own
 * pages and approvals). Tools are thin: they turn arguments into BAP calls and BAP results into
 * short text; the BAP server's gate (scopes, domain policy, approvals, secrets) checks every call.
 */
export class McpSession {
  readonly server: Server;
  private readonly bap: BAPClient;
  private readonly context: ToolContext;
  private readonly byName: Map<string, Tool>;
  private readonly listed: { name: string; description: string; inputSchema: ReturnType<typeof publishedSchema> }[];
  /** Pages whose dialogs are queued for the dialog tool. */
  private readonly managed = new Set<string>();
  private readonly requests = new Map<string, string[]>();
  /** The last approval refused because this host cannot ask its user. */
  private unasked: ApprovalRequired | undefined;
  private closed = false;

  constructor(backend: Backend, tools: readonly Tool[]) {
    this.byName = new Map(tools.map((t) => [t.name, t]));
    this.listed = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: publishedSchema(t.input) }));
    this.server = new Server(MCP_SERVER_INFO, { capabilities: { tools: {}, resources: {}, logging: {} }, instructions: INSTRUCTIONS });
    this.bap = backend.client({
      clientInfo: MCP_SERVER_INFO,
      events: ['page', 'console', 'network'],
      onApprovalRequired: (request) => this.approve(request),
    });
    this.context = {
      bap: this.bap,
      page: (tab) => this.page(tab),
      act: (pageId, steps, observe) => this.act(pageId, steps, observe),
      header: (pageId, metadata) => this.header(pageId, metadata),
      network: (pageId) => this.requests.get(pageId) ?? [],
    };
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.listed }));
    this.server.setRequestHandler(CallToolRequestSchema, (request) => this.call(request.params.name, request.params.arguments ?? {}));
    this.server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: pageResources }));
    this.server.setRequestHandler(ReadResourceRequestSchema, async (request) => readPageResource(this.bap, await this.page(undefined), request.params.uri));
    this.forwardEvents();
  }

  async connect(transport: Transport): Promise<void> {
    await this.bap.connect();
    await this.server.connect(transport);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.bap.close().catch(() => {});
    await this.server.close().catch(() => {});
  }

  private async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const tool = this.byName.get(name);
    if (!tool) return text(`Unknown tool "${name}". Tools: ${[...this.byName.keys()].join(', ')}.`, true);
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) return text(`Invalid arguments for ${name}: ${formatZodError(parsed.error).message}`, true);
    try {
      return await tool.run(this.context, parsed.data);
    } catch (error) {
      return text(this.explain(error), true);
    }
  }

  /** `tab`, or the active page, or a new one; every page this session uses queues its dialogs. */
  private async page(tab: string | undefined): Promise<string> {
    let pageId = tab;
    if (pageId === undefined) {
      const { activePage } = await this.bap.listPages();
      pageId = activePage ?? (await this.bap.createPage()).id;
    }
    if (!this.managed.has(pageId)) {
      this.managed.add(pageId);
      // Plumbing, not the model's request: a token without the dialog scope keeps the default policy (dismiss).
      await this.bap.call('dialog/setPolicy', { pageId, policy: 'queue', timeout: DIALOG_WAIT_MS }).catch((error: unknown) => {
        if (!BAPError.is(error, ErrorCodes.Unauthorized)) {
          this.managed.delete(pageId);
          throw error;
        }
      });
    }
    return pageId;
  }

  private async act(pageId: string, steps: ActStep[], observe: 'changes' | 'full' | 'none' = 'changes'): Promise<CallToolResult> {
    const postObserve = observe === 'full' ? { maxChars: NAVIGATION_BUDGET } : observe === 'changes' ? { incremental: true, maxChars: ACTION_BUDGET } : undefined;
    const result = await this.bap.act(steps, postObserve ? { pageId, postObserve } : { pageId });
    const failed = result.results.findIndex((r) => !r.success && !r.skipped);
    const lines = stepLines(result.results);
    // Nobody was asked: the step was not refused by a person, it needs one.
    if (failed >= 0 && result.results[failed]!.error?.code === ErrorCodes.ApprovalDenied && this.unasked) {
      lines.splice(failed, 1);
      lines.unshift(this.approvalNeeded(this.unasked));
    }
    const after = result.postObservation;
    return text([...lines, await this.header(pageId, after?.metadata), after ? observationBody(after) : ''].filter(Boolean).join('\n'), !result.success);
  }

  private async header(pageId: string, metadata?: Observation['metadata']): Promise<string> {
    const tabs = await this.bap.listPages();
    for (const p of tabs.pages) if (!this.managed.has(p.id)) await this.page(p.id).catch(() => {});
    return tabHeader(pageId, tabs, metadata);
  }

  private async approve(request: ApprovalRequired): Promise<ApprovalOutcome> {
    const outcome = await askForApproval(this.server, request);
    this.unasked = outcome.asked ? undefined : request;
    return outcome;
  }

  private approvalNeeded(request: ApprovalRequired): string {
    this.unasked = undefined;
    const element = request.context.elementInfo ? ` on ${request.context.elementInfo.role} ${JSON.stringify(request.context.elementInfo.name)}` : '';
    return (
      `ApprovalRequired: ${request.originalRequest.method}${element} at ${request.context.pageUrl} needs a person's approval (rule "${request.rule}"). ` +
      'This MCP host cannot ask its user (no elicitation support), so it was not done. Ask the user; to allow it, change that rule in the ' +
      'approval file given to --approval-file, or use an MCP host that supports elicitation.'
    );
  }

  private explain(error: unknown): string {
    if (error instanceof BAPError) {
      if (error.code === ErrorCodes.ApprovalDenied && this.unasked) return this.approvalNeeded(this.unasked);
      return errorText(error.toWire());
    }
    return error instanceof Error ? error.message : String(error);
  }

  /** Console errors and failed requests reach the host as MCP log messages; requests feed the network tool. */
  private forwardEvents(): void {
    const log = (level: 'error' | 'warning', logger: string, data: string) =>
      void this.server.sendLoggingMessage({ level, logger, data }).catch(() => {});
    this.bap.on('events/console', (e) => {
      if (e.level === 'error') log('error', 'console', `${e.pageId}: ${e.text}${e.url ? ` (${e.url}${e.line !== undefined ? `:${e.line}` : ''})` : ''}`);
    });
    this.bap.on('events/network', (e) => {
      if (e.type === 'request') return;
      const line = e.type === 'response' ? `${e.status} ${e.url}` : `failed ${e.url}: ${e.error}`;
      const list = this.requests.get(e.pageId) ?? [];
      list.push(line);
      if (list.length > NETWORK_LINES) list.shift();
      this.requests.set(e.pageId, list);
      if (e.type === 'failed' || e.status >= 400) log('warning', 'network', `${e.pageId}: ${line}`);
    });
    this.bap.on('events/page', (e) => {
      if (e.type === 'close') {
        this.managed.delete(e.pageId);
        this.requests.delete(e.pageId);
      }
    });
  }
}
