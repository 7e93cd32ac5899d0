import { z } from 'zod';
import { PageEvaluateParamsSchema, StorageSetStateParamsSchema } from '@browseragentprotocol/protocol';
import { tab, text, tool } from './tool.js';

export const evaluate = tool({
  name: 'evaluate',
  description: 'Run a JavaScript expression or function in the page; returns its value as JSON.',
  capability: 'evaluate',
  input: z.object({ expression: PageEvaluateParamsSchema.shape.expression, tab }),
  steps: (a) => [{ action: 'page/evaluate', params: { expression: a.expression }, label: 'evaluate' }],
  run: async (ctx, a) => {
    const pageId = await ctx.page(a.tab);
    const r = await ctx.bap.call('page/evaluate', { pageId, expression: a.expression });
    return text(JSON.stringify(r.value) ?? 'undefined');
  },
});

export const storage = tool({
  name: 'storage',
  description: 'Cookies and localStorage of the tab’s context: get them, set a saved state, or clear cookies.',
  capability: 'storage',
  input: z.object({ action: z.enum(['get', 'set', 'clear']), state: StorageSetStateParamsSchema.shape.state.optional(), tab }),
  run: async (ctx, a) => {
    const pageId = await ctx.page(a.tab);
    if (a.action === 'get') return text(JSON.stringify(await ctx.bap.call('storage/getState', { pageId })));
    if (a.action === 'clear') {
      const { cleared } = await ctx.bap.call('storage/clearCookies', { pageId });
      return text(`Cleared ${cleared} cookies.`);
    }
    if (!a.state) return text('set needs state: {cookies, origins}, as get returns it.', true);
    await ctx.bap.call('storage/setState', { pageId, state: a.state });
    return text(`Set ${a.state.cookies.length} cookies and the storage of ${a.state.origins.length} origins.`);
  },
});

export const network = tool({
  name: 'network',
  description: 'The tab’s recent requests with status, newest last (failed: only failures and HTTP errors).',
  capability: 'network',
  input: z.object({ failed: z.boolean().optional(), tab }),
  run: async (ctx, a) => {
    const pageId = await ctx.page(a.tab);
    const lines = ctx.network(pageId).filter((l) => !a.failed || !/^[123]\d\d /.test(l));
    return text(lines.length ? lines.join('\n') : 'No requests seen since this session started.');
  },
});
