import { z } from 'zod';
import { formatZodError } from '@browseragentprotocol/protocol';
import type { ActStep } from '../pageReport.js';
import { click, fill, hover, press, scroll, select, type, upload } from './actionTools.js';
import { evaluate, network, storage } from './capabilityTools.js';
import { consoleTool, dialog, extract, navigate, observe, pdf, screenshot, tabs, waitFor } from './pageTools.js';
import { tab, tool, type Capability, type Tool } from './tool.js';

/** `act`: the given tools' steps, run as one agent/act, so approvals and scopes apply to each step. */
function actTool(stepTools: readonly Tool[]): Tool {
  const byName = new Map(stepTools.map((t) => [t.name, t]));
  const names = [...byName.keys()].join(', ');
  /** A step checked with its own tool's schema; a bad step names its index and field. */
  const stepsOf = (name: string, args: Record<string, unknown>, index: number): ActStep[] => {
    const step = byName.get(name);
    if (!step?.steps) throw new Error(`steps[${index}].tool: "${name}" cannot be a step; use one of ${names}`);
    const parsed = step.input.safeParse(args);
    if (!parsed.success) throw new Error(`steps[${index}].args: ${formatZodError(parsed.error).message}`);
    return step.steps(parsed.data);
  };
  return tool({
    name: 'act',
    description: `Run steps in one call, stopping at a failure: [{tool:"fill",args:{target:"@e3",value:"x"}},{tool:"click",args:{target:"@e4"}}]. Step tools: ${names}.`,
    slim: true,
    input: z.object({
      steps: z
        .array(z.object({ tool: z.string().min(1).max(40), args: z.record(z.string(), z.unknown()) }))
        .min(1)
        .max(50),
      tab,
    }),
    run: async (ctx, a) => ctx.act(await ctx.page(a.tab), a.steps.flatMap((s, i) => stepsOf(s.tool, s.args, i))),
  });
}

/** Every tool but `act`, in the order tools/list shows them (act goes after upload). */
const tools: Tool[] = [navigate, observe, click, fill, type, press, select, hover, scroll, upload, extract, screenshot, tabs, waitFor, dialog, consoleTool, pdf, evaluate, storage, network];

/**
 * The tools a server offers: the default set, or the slim one, plus what `caps` turns on. The
 * steps `act` accepts are the offered tools that have steps (all of them, in slim mode).
 */
export function selectTools(options: { slim?: boolean; caps?: readonly Capability[] }): Tool[] {
  const caps = new Set(options.caps ?? []);
  const permitted = tools.filter((t) => !t.capability || caps.has(t.capability));
  const offered = permitted.filter((t) => !options.slim || t.slim);
  const act = actTool(permitted.filter((t) => t.steps));
  const at = offered.findIndex((t) => t.name === 'extract');
  return [...offered.slice(0, at), act, ...offered.slice(at)];
}

export type { Capability, Tool, ToolContext } from './tool.js';
