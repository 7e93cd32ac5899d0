import { z } from 'zod';
import type { BAPClient } from '@browseragentprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ActStep, Observation } from '../pageReport.js';

/** Tools only a `--caps` flag turns on: they read or change more than a page shows. */
export type Capability = 'evaluate' | 'storage' | 'network';

/** What a tool runs against: the session's BAP client and the page it resolves. */
export interface ToolContext {
  bap: BAPClient;
  /** The page a tool acts on: `tab` if given, else the active page, opening one if there is none. */
  page(tab: string | undefined): Promise<string>;
  /**
   * Runs steps as one agent/act and reports the step results, then what changed on the page
   * (`changes`, the default), the page's elements (`full`), or nothing more (`none`).
   */
  act(pageId: string, steps: ActStep[], observe?: 'changes' | 'full' | 'none'): Promise<CallToolResult>;
  /** The tab line (and the dialogs, if any) for the top of a result. */
  header(pageId: string, metadata?: Observation['metadata']): Promise<string>;
  /** Requests and responses seen on each page, most recent last (the `network` tool). */
  network(pageId: string): readonly string[];
}

export interface Tool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  /** Written for a model: what it does and what it returns, in a sentence or two. */
  description: string;
  input: S;
  /** In `--slim` mode too. */
  slim?: true;
  capability?: Capability;
  /** An agent/act step list for this call, so the tool also works as a step of `act`. */
  steps?: (args: z.infer<S>) => ActStep[];
  run(ctx: ToolContext, args: z.infer<S>): Promise<CallToolResult>;
}

export function tool<S extends z.ZodObject>(definition: Tool<S>): Tool {
  return definition as unknown as Tool;
}

/** `tab`, which every page tool takes. */
export const tab = z.string().min(1).max(64).optional();

export function text(body: string, isError = false): CallToolResult {
  return isError ? { content: [{ type: 'text', text: body }], isError: true } : { content: [{ type: 'text', text: body }] };
}

/**
 * A tool's published input schema: the zod schema as JSON Schema, without the keys that cost a
 * model tokens and tell it nothing it needs (length and count bounds, `$schema`,
 * `additionalProperties`). The zod schema still validates every call in full.
 */
export function publishedSchema(schema: z.ZodObject): { type: 'object'; [key: string]: unknown } {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return prune(json) as { type: 'object' };
}

const DROPPED = new Set(['$schema', 'additionalProperties', 'propertyNames', 'maxLength', 'minLength', 'maxItems', 'minItems', 'maximum', 'minimum', 'exclusiveMinimum', 'exclusiveMaximum', 'format', 'pattern']);

function prune(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(prune);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    // `properties` maps names to schemas: its keys are field names, never schema keywords.
    if (key === 'properties') out[key] = Object.fromEntries(Object.entries(inner as object).map(([k, v]) => [k, prune(v)]));
    else if (!DROPPED.has(key)) out[key] = prune(inner);
  }
  return out;
}
