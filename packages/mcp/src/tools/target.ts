import { z } from 'zod';
import { parseSelector, type Selector } from '@browseragentprotocol/protocol';

/**
 * An element, in the string forms BAP's CLI and MCP accept (the server instructions say which);
 * refs come from observe.
 */
export const target = z
  .string()
  .min(1)
  .max(2_000);

export function selector(input: string): Selector {
  return parseSelector(input);
}

/** A step's label as a model reads it back: `click @e5`, `fill label:Email`. */
export function label(verb: string, input?: string): string {
  return input === undefined ? verb : `${verb} ${input.length > 60 ? `${input.slice(0, 60)}…` : input}`;
}
