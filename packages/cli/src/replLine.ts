import { isMethodName, type MethodName } from '@browseragentprotocol/protocol';

/** What one line typed at the `bap connect` prompt asks for. */
export type ReplLine =
  | { kind: 'empty' }
  | { kind: 'help' }
  | { kind: 'exit' }
  | { kind: 'call'; method: MethodName; params: Record<string, unknown> | undefined }
  | { kind: 'raw'; message: unknown }
  | { kind: 'invalid'; reason: string };

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** `.help`, `.exit`, `method {json params}`, or a raw JSON-RPC object or batch array. */
export function parseReplLine(input: string): ReplLine {
  const line = input.trim();
  if (line === '') return { kind: 'empty' };
  if (line === '.help') return { kind: 'help' };
  if (line === '.exit') return { kind: 'exit' };
  if (line.startsWith('.')) return { kind: 'invalid', reason: `unknown command ${line.split(/\s/)[0]}; try .help` };
  if (line.startsWith('{') || line.startsWith('[')) {
    const json = parseJson(line);
    return json.ok ? { kind: 'raw', message: json.value } : { kind: 'invalid', reason: json.reason };
  }
  const space = line.search(/\s/);
  const method = space < 0 ? line : line.slice(0, space);
  const rest = space < 0 ? '' : line.slice(space).trim();
  if (!isMethodName(method)) {
    return { kind: 'invalid', reason: `unknown method ${method}; .help lists them (a raw JSON-RPC object sends anything)` };
  }
  if (rest === '') return { kind: 'call', method, params: undefined };
  const json = parseJson(rest);
  if (!json.ok) return { kind: 'invalid', reason: json.reason };
  const params = json.value;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    return { kind: 'invalid', reason: 'params must be a JSON object' };
  }
  return { kind: 'call', method, params: params as Record<string, unknown> };
}
