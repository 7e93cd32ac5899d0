import { z } from 'zod';
import {
  ClickOptionsSchema,
  FillParamsSchema,
  PressParamsSchema,
  ScrollOptionsSchema,
  SelectParamsSchema,
  UploadParamsSchema,
} from '@browseragentprotocol/protocol';
import type { ActStep } from '../pageReport.js';
import { label, selector, target } from './target.js';
import { tab, tool, type Tool } from './tool.js';

interface ActionDefinition<S extends z.ZodObject> extends Omit<Tool<S>, 'run' | 'steps'> {
  steps: (args: z.infer<S>) => ActStep[];
  /** Whether the result shows what changed (default) or just the step: a fill changes only its own field. */
  observe?: (args: z.infer<S>) => 'changes' | 'none';
}

/** An action tool: its steps run as one agent/act, reporting what changed on the page. */
function action<S extends z.ZodObject>(definition: ActionDefinition<S>): Tool {
  const { observe, ...rest } = definition;
  return tool<S>({
    ...rest,
    run: async (ctx, args) => ctx.act(await ctx.page((args as { tab?: string }).tab), definition.steps(args), observe?.(args)),
  });
}

const submit = z.boolean().optional().describe('Press Enter afterwards');
const pressEnter = (input: string): ActStep => ({ action: 'action/press', params: { key: 'Enter', selector: selector(input) }, label: 'press Enter' });

export const click = action({
  name: 'click',
  description: 'Click target. Returns what changed.',
  input: z.object({
    target,
    double: z.boolean().optional().describe('Double-click'),
    button: ClickOptionsSchema.shape.button,
    tab,
  }),
  steps: (a) => {
    const options = a.button ? { button: a.button } : {};
    return [{ action: a.double ? 'action/dblclick' : 'action/click', params: { selector: selector(a.target), options }, label: label(a.double ? 'double-click' : 'click', a.target) }];
  },
});

export const fill = action({
  name: 'fill',
  description: 'Set a field’s value ({{secret:NAME}} types a stored secret).',
  input: z.object({ target, value: FillParamsSchema.shape.value, submit, tab }),
  observe: (a) => (a.submit ? 'changes' : 'none'),
  steps: (a) => [
    { action: 'action/fill', params: { selector: selector(a.target), value: a.value }, label: label('fill', a.target) },
    ...(a.submit ? [pressEnter(a.target)] : []),
  ],
});

export const type = action({
  name: 'type',
  description: 'Type text key by key (fill is faster).',
  input: z.object({ target, text: FillParamsSchema.shape.value, submit, tab }),
  steps: (a) => [
    { action: 'action/type', params: { selector: selector(a.target), text: a.text }, label: label('type', a.target) },
    ...(a.submit ? [pressEnter(a.target)] : []),
  ],
});

export const press = action({
  name: 'press',
  description: 'Press a key or chord (Enter, Control+a) on target or the focus.',
  input: z.object({ key: PressParamsSchema.shape.key, target: target.optional(), tab }),
  steps: (a) => [
    { action: 'action/press', params: { key: a.key, ...(a.target ? { selector: selector(a.target) } : {}) }, label: label(`press ${a.key}`, a.target) },
  ],
});

export const select = action({
  name: 'select',
  description: 'Pick options of a select by value or label.',
  input: z.object({ target, values: SelectParamsSchema.shape.values, tab }),
  steps: (a) => [{ action: 'action/select', params: { selector: selector(a.target), values: a.values }, label: label('select', a.target) }],
});

export const hover = action({
  name: 'hover',
  description: 'Hover over target.',
  input: z.object({ target, tab }),
  steps: (a) => [{ action: 'action/hover', params: { selector: selector(a.target) }, label: label('hover', a.target) }],
});

export const scroll = action({
  name: 'scroll',
  description: 'Scroll the page or target (amount: px or page); target alone scrolls it into view.',
  input: z.object({ target: target.optional(), direction: ScrollOptionsSchema.shape.direction, amount: ScrollOptionsSchema.shape.amount, tab }),
  steps: (a) => {
    const options = { ...(a.direction ? { direction: a.direction } : {}), ...(a.amount !== undefined ? { amount: a.amount } : {}) };
    return [{ action: 'action/scroll', params: { ...(a.target ? { selector: selector(a.target) } : {}), options }, label: label('scroll', a.target) }];
  },
});

export const upload = action({
  name: 'upload',
  description: 'Put files (paths in the server’s upload dirs) on a file input.',
  input: z.object({ target, paths: UploadParamsSchema.shape.paths.unwrap().min(1), tab }),
  steps: (a) => [{ action: 'action/upload', params: { selector: selector(a.target), paths: a.paths }, label: label('upload', a.target) }],
});
