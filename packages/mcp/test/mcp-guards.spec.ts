import { BapMcpServer, type McpOptions } from '@browseragentprotocol/mcp';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ClientCapabilities, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fixtures, callTool as call, connect } from './support.js';

/**
 * The server's security options hold for every MCP tool, steps inside `act` included: the domain
 * policy, scopes, secrets, approvals (asked through elicitation, or refused with ApprovalRequired
 * when the host cannot ask), argument checks and the tools that capabilities turn on.
 */

const API_KEY = 'sk-live-9f8e7d6c5b4a3210';
const PAY_RULE = { name: 'payments', match: { actions: ['action/*'], selectors: [{ role: 'button', namePattern: 'pay' }] }, action: 'require' as const, timeout: 10_000 };

/** The buttons clicked so far, as the checkout page shows them. */
async function clicks(client: Client): Promise<string> {
  const { text } = await call(client, 'extract', { schema: { type: 'object', properties: { log: { type: 'string', 'x-selector': '#log' } } } });
  return (JSON.parse(text) as { log: string }).log;
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

let fixtures: Fixtures;
const servers: BapMcpServer[] = [];
const clients: Client[] = [];

/** A server closed after the file's tests. */
function mcpServer(options: McpOptions): BapMcpServer {
  const mcp = new BapMcpServer({ ...options, server: { headless: true, ...options.server } });
  servers.push(mcp);
  return mcp;
}

async function client(mcp: BapMcpServer, capabilities: ClientCapabilities = {}): Promise<Client> {
  const c = await connect(mcp, capabilities);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  fixtures = await Fixtures.start();
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(servers.map((s) => s.close()));
  await fixtures?.close();
});

describe('a guarded server: domain policy, secrets and approvals', () => {
  let mcp: BapMcpServer;
  /** What the elicitation handler answers, and the messages it was asked. */
  let answer: ElicitResult = { action: 'accept', content: { decision: 'approve' } };
  const asked: ElicitRequest['params'][] = [];
  let asking: Client;
  let unasking: Client;
  const checkout = () => fixtures.url('mcp-checkout.html', 'allowed.localhost');
  const denied = () => fixtures.url('mcp-checkout.html', 'denied.localhost');

  beforeAll(async () => {
    mcp = mcpServer({
      server: {
        allowedDomains: ['allowed.localhost'],
        secrets: { API_KEY },
        approval: { mode: 'required', rules: [PAY_RULE], defaultAction: 'allow' },
      },
    });
    asking = await client(mcp, { elicitation: {} });
    asking.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return answer;
    });
    unasking = await client(mcp);
  });

  describe('domain policy', () => {
    it('navigate to a host the policy refuses fails with DomainNotAllowed and the URL, and the host is never contacted', async () => {
      const ok = await call(unasking, 'navigate', { url: checkout() });
      expect(ok.isError, ok.text).toBe(false);
      const refused = await call(unasking, 'navigate', { url: denied() });
      expect(refused.isError).toBe(true);
      expect(refused.text).toContain('DomainNotAllowed');
      expect(refused.text).toContain(denied());
      expect(fixtures.hosts.filter((h) => h.startsWith('denied.localhost'))).toEqual([]);
    });

    it('a navigate step inside act is refused the same way, after the steps before it ran', async () => {
      await call(unasking, 'navigate', { url: checkout() });
      const r = await call(unasking, 'act', {
        steps: [
          { tool: 'click', args: { target: 'role:button:Cancel' } },
          { tool: 'navigate', args: { url: denied() } },
        ],
      });
      expect(r.isError).toBe(true);
      expect(r.text).toContain('DomainNotAllowed');
      expect(r.text).toContain(denied());
      expect(await clicks(unasking)).toBe('clicks: cancel');
      expect(fixtures.hosts.filter((h) => h.startsWith('denied.localhost'))).toEqual([]);
    });

    it('tabs {action: new} at a refused host is refused too, leaving no tab behind', async () => {
      await call(unasking, 'navigate', { url: checkout() });
      const before = await call(unasking, 'tabs', { action: 'list' });
      const r = await call(unasking, 'tabs', { action: 'new', url: denied() });
      expect(r.isError).toBe(true);
      expect(r.text).toContain('DomainNotAllowed');
      expect(fixtures.hosts.filter((h) => h.startsWith('denied.localhost'))).toEqual([]);
      expect((await call(unasking, 'tabs', { action: 'list' })).text).toBe(before.text);
    });
  });

  describe('secrets', () => {
    it('fill {{secret:API_KEY}} types the value, and no tool result or resource shows it', async () => {
      await call(unasking, 'navigate', { url: checkout() });
      const texts: string[] = [];
      const keep = async (name: string, args: Record<string, unknown> = {}) => {
        const r = await call(unasking, name, args);
        expect(r.isError, `${name}: ${r.text}`).toBe(false);
        texts.push(r.text);
        return r;
      };
      await keep('fill', { target: 'label:API key', value: '{{secret:API_KEY}}' });
      await keep('act', { steps: [{ tool: 'type', args: { target: 'label:API key', text: ' {{secret:API_KEY}}' } }] });
      // The page echoed the value into its text, title, an attribute and the console.
      await keep('observe', { tier: 'full' });
      const extracted = await keep('extract', {
        schema: { type: 'object', properties: { echo: { type: 'string', 'x-selector': '#echo' }, title: { type: 'string' } } },
      });
      await keep('console', {});
      const shot = await keep('screenshot', { marks: true });
      expect(shot.text).toContain('Marks:');
      for (const uri of ['bap://tab/state', 'bap://tab/snapshot']) {
        const { contents } = await unasking.readResource({ uri });
        texts.push(...contents.flatMap((c) => ('text' in c ? [c.text] : [])));
      }
      // The page did receive something for the placeholder, and reads it back as the placeholder.
      expect(extracted.text).toContain('{{secret:API_KEY}}');
      for (const text of texts) {
        expect(text).not.toContain(API_KEY);
        expect(text).not.toContain(API_KEY.slice(0, -1));
      }
    });
  });

  describe('approvals through elicitation', () => {
    it('approve: the user is asked, naming the button and the rule, and the click happens', async () => {
      await call(asking, 'navigate', { url: checkout() });
      asked.length = 0;
      answer = { action: 'accept', content: { decision: 'approve' } };
      const r = await call(asking, 'click', { target: 'role:button:Pay now' });
      expect(r.isError, r.text).toBe(false);
      expect(asked).toHaveLength(1);
      expect(asked[0]!.message).toContain('Pay now');
      expect(asked[0]!.message).toContain('payments');
      expect(await clicks(asking)).toBe('clicks: pay');
    });

    it('deny: the call fails and nothing is clicked', async () => {
      await call(asking, 'navigate', { url: checkout() });
      asked.length = 0;
      answer = { action: 'accept', content: { decision: 'deny' } };
      const r = await call(asking, 'click', { target: 'role:button:Pay now' });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/denied/i);
      expect(asked).toHaveLength(1);
      expect(await clicks(asking)).toBe('clicks:');
    });

    it('a step of act is asked about on its own; the steps before it run without asking', async () => {
      await call(asking, 'navigate', { url: checkout() });
      asked.length = 0;
      answer = { action: 'accept', content: { decision: 'approve' } };
      const r = await call(asking, 'act', {
        steps: [
          { tool: 'click', args: { target: 'role:button:Cancel' } },
          { tool: 'click', args: { target: 'role:button:Pay now' } },
        ],
      });
      expect(r.isError, r.text).toBe(false);
      expect(asked).toHaveLength(1);
      expect(asked[0]!.message).toContain('Pay now');
      expect(await clicks(asking)).toBe('clicks: cancel,pay');

      asked.length = 0;
      answer = { action: 'decline' };
      const declined = await call(asking, 'act', {
        steps: [
          { tool: 'click', args: { target: 'role:button:Pay now' } },
          { tool: 'click', args: { target: 'role:button:Cancel' } },
        ],
      });
      expect(declined.isError).toBe(true);
      expect(asked).toHaveLength(1);
      expect(await clicks(asking)).toBe('clicks: cancel,pay');
    });
  });

  describe('approvals on a host without elicitation', () => {
    it('click fails with ApprovalRequired, naming the rule and how to allow it, and nothing is clicked', async () => {
      await call(unasking, 'navigate', { url: checkout() });
      const r = await call(unasking, 'click', { target: 'role:button:Pay now' });
      expect(r.isError).toBe(true);
      expect(r.text.startsWith('ApprovalRequired'), r.text).toBe(true);
      expect(r.text).toContain('"payments"');
      expect(r.text).toContain('Pay now');
      expect(r.text).toContain('--approval-file');
      expect(r.text).toContain('elicitation');
      // Nobody was asked, so nothing may say a person refused.
      expect(r.text).not.toContain('A person refused');
      expect(await clicks(unasking)).toBe('clicks:');
    });

    it('a step of act fails the same way, and the steps after it are skipped', async () => {
      await call(unasking, 'navigate', { url: checkout() });
      const r = await call(unasking, 'act', {
        steps: [
          { tool: 'click', args: { target: 'role:button:Pay now' } },
          { tool: 'click', args: { target: 'role:button:Cancel' } },
        ],
      });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/^ApprovalRequired: action\/click on button "Pay now" .*rule "payments"/m);
      expect(r.text).toMatch(/skipped/);
      expect(await clicks(unasking)).toBe('clicks:');
    });
  });

  describe('invalid arguments', () => {
    it('a tool call missing a required argument names it', async () => {
      const r = await call(unasking, 'click', {});
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/^Invalid arguments for click: target: /);
    });

    it('an unknown tool lists the tools there are', async () => {
      const r = await call(unasking, 'teleport', { to: 'mars' });
      expect(r.isError).toBe(true);
      expect(r.text).toContain('Unknown tool "teleport"');
      for (const name of ['navigate', 'observe', 'click', 'act']) expect(r.text).toContain(name);
    });

    it('act names the bad step by index and field, before running any step', async () => {
      await call(unasking, 'navigate', { url: checkout() });
      const r = await call(unasking, 'act', {
        steps: [
          { tool: 'click', args: { target: 'role:button:Cancel' } },
          { tool: 'click', args: { targt: 'role:button:Cancel' } },
        ],
      });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/steps\[1\]\.args: target/);
      expect(await clicks(unasking)).toBe('clicks:');
    });

    it('act refuses a step whose tool is off (evaluate without caps)', async () => {
      const r = await call(unasking, 'act', { steps: [{ tool: 'evaluate', args: { expression: 'document.title' } }] });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/steps\[0\]\.tool: "evaluate"/);
    });
  });
});

describe('scopes', () => {
  it('readonly: click is refused naming the scope it lacks; tabs {list} still answers', async () => {
    const c = await client(mcpServer({ scopes: ['readonly'] }));
    const r = await call(c, 'click', { target: 'role:button:Pay now' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/needs scope "[a-z]+:[a-zA-Z*]+"/);
    expect(r.text).not.toContain('Unauthorized: Unauthorized');
    const tabs = await call(c, 'tabs', { action: 'list' });
    expect(tabs.isError, tabs.text).toBe(false);
    expect(tabs.text).toContain('No tabs open');
  });

  it('readonly plus opening pages: navigate and observe work, click is refused naming action:click, and the page is unchanged', async () => {
    const c = await client(mcpServer({ scopes: ['readonly', 'page:create', 'page:navigate', 'agent:act'] }));
    const nav = await call(c, 'navigate', { url: fixtures.url('mcp-checkout.html') });
    expect(nav.isError, nav.text).toBe(false);
    const observed = await call(c, 'observe');
    expect(observed.isError, observed.text).toBe(false);
    expect(observed.text).toMatch(/@b\d+ button "Pay now"/);
    const r = await call(c, 'click', { target: 'role:button:Cancel' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('action:click');
    expect(r.text).not.toContain('Unauthorized: Unauthorized');
    const inAct = await call(c, 'act', { steps: [{ tool: 'click', args: { target: 'role:button:Cancel' } }] });
    expect(inAct.isError).toBe(true);
    expect(inAct.text).toContain('action:click');
    expect(await clicks(c)).toBe('clicks:');
  });
});

describe('capabilities and --slim', () => {
  const SLIM = ['act', 'extract', 'navigate', 'observe', 'screenshot'];

  it('evaluate, storage and network are off by default', async () => {
    const names = await toolNames(await client(mcpServer({})));
    for (const name of ['navigate', 'observe', 'click', 'act', 'tabs', 'dialog', 'pdf']) expect(names).toContain(name);
    for (const name of ['evaluate', 'storage', 'network']) expect(names).not.toContain(name);
  });

  it('caps: [evaluate] lists evaluate, which then runs, as a tool and as a step of act', async () => {
    const c = await client(mcpServer({ caps: ['evaluate'] }));
    expect(await toolNames(c)).toContain('evaluate');
    await call(c, 'navigate', { url: fixtures.url('mcp-checkout.html') });
    const r = await call(c, 'evaluate', { expression: 'document.title' });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toBe('"Checkout"');
    const step = await call(c, 'act', { steps: [{ tool: 'evaluate', args: { expression: 'document.title' } }] });
    expect(step.isError, step.text).toBe(false);
    expect(step.text).toContain('Checkout');
  });

  it('slim lists exactly navigate, observe, act, extract and screenshot', async () => {
    const c = await client(mcpServer({ slim: true }));
    expect((await toolNames(c)).sort()).toEqual(SLIM);
    const r = await call(c, 'click', { target: 'role:button:Pay now' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('Unknown tool "click"');
  });
});
