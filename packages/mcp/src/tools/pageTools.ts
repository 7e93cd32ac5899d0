import { z } from 'zod';
import {
  AgentExtractParamsSchema,
  AgentObserveParamsSchema,
  ConsoleParamsSchema,
  DialogHandleParamsSchema,
  PageNavigateParamsSchema,
  PageWaitForParamsSchema,
} from '@browseragentprotocol/protocol';
import { observationBody, type ActStep } from '../pageReport.js';
import { label, selector, target } from './target.js';
import { tab, text, tool } from './tool.js';

/** Characters an observe call returns unless the model asks for another budget. */
export const OBSERVE_BUDGET = 12_000;

const go = z.enum(['back', 'forward', 'reload']);
const HISTORY = { back: 'page/goBack', forward: 'page/goForward', reload: 'page/reload' } as const;

export const navigate = tool({
  name: 'navigate',
  description: 'Open url, or go back, forward or reload. Returns the page’s elements.',
  slim: true,
  input: z.object({ url: PageNavigateParamsSchema.shape.url.optional(), go: go.optional(), tab }),
  steps: (a): ActStep[] => navigationSteps(a),
  run: async (ctx, a) => ctx.act(await ctx.page(a.tab), navigationSteps(a), 'full'),
});

function navigationSteps(a: { url?: string | undefined; go?: z.infer<typeof go> | undefined }): ActStep[] {
  if ((a.url === undefined) === (a.go === undefined)) throw new Error('give url or go (back, forward, reload), not both');
  if (a.go) return [{ action: HISTORY[a.go], params: {}, label: a.go }];
  return [{ action: 'page/navigate', params: { url: a.url! }, label: label('navigate', a.url) }];
}

export const observe = tool({
  name: 'observe',
  description: 'Interactive elements with refs (@e5) to pass as target, cut to maxChars (cursor continues). incremental: only changes.',
  slim: true,
  input: z.object({
    tier: AgentObserveParamsSchema.shape.responseTier,
    incremental: z.boolean().optional(),
    viewportOnly: z.boolean().optional(),
    roles: AgentObserveParamsSchema.shape.filterRoles,
    maxChars: AgentObserveParamsSchema.shape.maxChars,
    cursor: AgentObserveParamsSchema.shape.cursor,
    tab,
  }),
  run: async (ctx, a) => {
    const pageId = await ctx.page(a.tab);
    const o = await ctx.bap.observe({
      pageId,
      ...(a.cursor ? { cursor: a.cursor } : {}),
      ...(a.tier ? { responseTier: a.tier } : {}),
      ...(a.incremental ? { incremental: true } : {}),
      ...(a.viewportOnly ? { viewportOnly: true } : {}),
      ...(a.roles ? { filterRoles: a.roles } : {}),
      maxChars: a.maxChars ?? OBSERVE_BUDGET,
    });
    return text(`${await ctx.header(pageId, o.metadata)}\n${observationBody(o)}`);
  },
});

export const screenshot = tool({
  name: 'screenshot',
  description: 'Screenshot the viewport, full page or target; marks numbers the elements and lists their refs.',
  slim: true,
  input: z.object({
    target: target.optional(),
    fullPage: z.boolean().optional(),
    marks: z.boolean().optional(),
    format: z.enum(['png', 'jpeg']).optional(),
    tab,
  }),
  run: async (ctx, a) => {
    const pageId = await ctx.page(a.tab);
    const options = {
      ...(a.fullPage ? { fullPage: true } : {}),
      ...(a.marks ? { annotate: {} } : {}),
      ...(a.format ? { format: a.format } : {}),
    };
    const shot = await ctx.bap.screenshot({ pageId, ...(a.target ? { selector: selector(a.target) } : {}), options });
    const marks = (shot.annotations ?? []).map((m) => `[${m.label}] ${m.ref} ${m.element.role} ${JSON.stringify(m.element.name)}`);
    return {
      content: [
        { type: 'image', data: shot.data, mimeType: `image/${shot.format}` },
        ...(marks.length ? [{ type: 'text' as const, text: `Marks:\n${marks.join('\n')}` }] : []),
      ],
    };
  },
});

export const extract = tool({
  name: 'extract',
  description: 'Read data shaped by a JSON Schema (properties may carry x-selector, a CSS selector) from tables, lists, forms and metadata.',
  slim: true,
  input: z.object({
    schema: AgentExtractParamsSchema.shape.schema,
    instruction: AgentExtractParamsSchema.shape.instruction,
    target: target.optional(),
    tab,
  }),
  run: async (ctx, a) => {
    const pageId = await ctx.page(a.tab);
    const result = await ctx.bap.extract(a.schema, {
      pageId,
      ...(a.instruction ? { instruction: a.instruction } : {}),
      ...(a.target ? { selector: selector(a.target) } : {}),
    });
    return text(JSON.stringify(result.data));
  },
});

export const tabs = tool({
  name: 'tabs',
  description: 'List, open (at url), select or close tabs.',
  input: z.object({ action: z.enum(['list', 'new', 'select', 'close']), tab, url: PageNavigateParamsSchema.shape.url.optional() }),
  run: async (ctx, a) => {
    if (a.action === 'new') await ctx.bap.createPage(a.url ? { url: a.url } : {});
    else if (a.action !== 'list') {
      const pageId = await ctx.page(a.tab);
      await ctx.bap.call(a.action === 'select' ? 'page/activate' : 'page/close', { pageId });
    }
    const list = await ctx.bap.listPages();
    const lines = list.pages.map((p) => `${p.id}${p.id === list.activePage ? ' (active)' : ''} ${JSON.stringify(p.title)} ${p.url}`);
    return text(lines.length ? lines.join('\n') : 'No tabs open: navigate opens one.');
  },
});

export const waitFor = tool({
  name: 'wait_for',
  description: 'Wait for one of: text, textGone, target state, url, loadState, time (ms).',
  input: z.object({
    text: PageWaitForParamsSchema.shape.text,
    textGone: PageWaitForParamsSchema.shape.textGone,
    target: target.optional(),
    state: PageWaitForParamsSchema.shape.state,
    url: PageWaitForParamsSchema.shape.url,
    loadState: PageWaitForParamsSchema.shape.loadState,
    time: PageWaitForParamsSchema.shape.time,
    timeout: PageWaitForParamsSchema.shape.timeout,
    tab,
  }),
  steps: (a) => [waitStep(a)],
  run: async (ctx, a) => ctx.act(await ctx.page(a.tab), [waitStep(a)]),
});

function waitStep(a: Record<string, unknown>): ActStep {
  const { target: element, tab: _tab, ...rest } = a as { target?: string; tab?: string };
  const params = { ...rest, ...(element ? { selector: selector(element) } : {}) };
  return { action: 'page/waitFor', params, label: 'wait' };
}

export const dialog = tool({
  name: 'dialog',
  description: 'Accept or dismiss the open dialog, or else the next one.',
  input: z.object({ action: DialogHandleParamsSchema.shape.action, promptText: DialogHandleParamsSchema.shape.promptText, tab }),
  run: async (ctx, a) => {
    const pageId = await ctx.page(a.tab);
    const r = await ctx.bap.call('dialog/handle', { pageId, action: a.action, ...(a.promptText !== undefined ? { promptText: a.promptText } : {}) });
    const what = r.dialog ? `${r.dialog.type} ${JSON.stringify(r.dialog.message)}` : 'the next dialog';
    return text(r.status === 'handled' ? `${a.action === 'accept' ? 'Accepted' : 'Dismissed'} ${what}.` : `No dialog open: will ${a.action} ${what}.`);
  },
});

/** Console lines returned at most; the newest are kept. */
const CONSOLE_LINES = 100;

export const consoleTool = tool({
  name: 'console',
  description: 'Console messages (level: this severe or worse).',
  input: z.object({ level: ConsoleParamsSchema.shape.level, tab }),
  run: async (ctx, a) => {
    const pageId = await ctx.page(a.tab);
    const { messages } = await ctx.bap.call('observe/console', { pageId, ...(a.level ? { level: a.level } : {}) });
    const lines = messages.slice(-CONSOLE_LINES).map((m) => `[${m.level}] ${m.text}${m.url ? ` (${m.url}${m.line !== undefined ? `:${m.line}` : ''})` : ''}`);
    const cut = messages.length > CONSOLE_LINES ? `${messages.length - CONSOLE_LINES} older messages left out\n` : '';
    return text(lines.length ? cut + lines.join('\n') : 'No console messages.');
  },
});

export const pdf = tool({
  name: 'pdf',
  description: 'Print the page to PDF.',
  input: z.object({ landscape: z.boolean().optional(), tab }),
  run: async (ctx, a) => {
    const pageId = await ctx.page(a.tab);
    const options = a.landscape ? { landscape: true } : {};
    const r = await ctx.bap.call('observe/pdf', { pageId, options });
    return {
      content: [
        { type: 'text', text: `PDF of ${pageId}, ${r.size} bytes.` },
        { type: 'resource', resource: { uri: `bap://tab/${pageId}/page.pdf`, mimeType: 'application/pdf', blob: r.data } },
      ],
    };
  },
});
