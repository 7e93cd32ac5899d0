import { BAPError, type MethodParams, type MethodResult } from '@browseragentprotocol/protocol';

export type ActStep = MethodParams<'agent/act'>['steps'][number];
export type Observation = MethodResult<'agent/observe'>;
type Tabs = MethodResult<'page/list'>;
type StepResult = MethodResult<'agent/act'>['results'][number];

/**
 * The top of every page result: which tab this is among how many, its title and URL, the other
 * tabs, open dialogs and frames. Models lose track of tabs and dialogs when a tool hides them.
 */
export function tabHeader(pageId: string, tabs: Tabs, metadata?: Observation['metadata']): string {
  const here = tabs.pages.find((p) => p.id === pageId);
  const url = metadata?.url ?? here?.url ?? '';
  const title = metadata?.title ?? here?.title ?? '';
  const active = tabs.activePage === pageId ? 'active, ' : '';
  const lines = [`Tab ${pageId} (${active}${tabs.pages.length} open): ${JSON.stringify(title)} ${url}`];
  const others = tabs.pages.filter((p) => p.id !== pageId);
  if (others.length) lines.push(`Other tabs: ${others.slice(0, 8).map((p) => `${p.id} ${JSON.stringify(p.title)} ${p.url}`).join(' | ')}${others.length > 8 ? ' …' : ''}`);
  for (const d of metadata?.dialogs ?? []) {
    lines.push(`Dialog open: ${d.type} ${JSON.stringify(d.message)}. The page waits: answer it with the dialog tool.`);
  }
  if (metadata?.frameCount) lines.push(`Frames: ${metadata.frameCount} (their elements are listed with the page's and act like any other).`);
  return lines.join('\n');
}

/** Removed refs listed by name; a page that replaced its content says how many went, not each. */
const REMOVED_SHOWN = 20;

/** Element lines, or what changed, with a pointer to the rest when the budget cut it. */
export function observationBody(o: Observation): string {
  const out: string[] = [];
  if (o.changes) {
    const { added, changed, removed } = o.changes;
    if (!added && !changed && !removed.length) out.push('No change to the interactive elements.');
    else {
      out.push('Changes:');
      if (added) out.push(prefixLines(added, '+ '));
      if (changed) out.push(prefixLines(changed, '~ '));
      if (removed.length) out.push(`- removed (${removed.length}): ${removed.slice(0, REMOVED_SHOWN).join(' ')}${removed.length > REMOVED_SHOWN ? ' …' : ''}`);
    }
  } else if (o.elements !== undefined) {
    out.push(o.elements ? `Interactive elements (${o.elementCount}):\n${o.elements}` : 'No interactive elements.');
  }
  if (o.snapshot) out.push(`Snapshot:\n${o.snapshot}`);
  if (o.truncated && o.cursor) out.push(`[cut to fit: observe {"cursor":"${o.cursor}"} returns the rest]`);
  return out.join('\n');
}

function prefixLines(lines: string, prefix: string): string {
  return lines
    .split('\n')
    .filter(Boolean)
    .map((l) => prefix + l)
    .join('\n');
}

/** One line per step: what ran and how it ended; values worth seeing (selected options, scroll) inline. */
export function stepLines(results: readonly StepResult[]): string[] {
  return results.map((r) => {
    const label = r.label ?? r.action;
    if (r.skipped) return `- ${label}: skipped`;
    if (!r.success) return `✗ ${label}: ${errorText(r.error)}`;
    const shown = r.result && typeof r.result === 'object' ? brief(r.result) : '{}';
    const value = shown === '{}' ? '' : ` → ${shown}`;
    return `✓ ${label}${value}`;
  });
}

/** `Name: message Hint: …`, the error's name once, as a model can look it up in docs/protocol.md. */
export function errorText(error: { code: number; message: string; data?: unknown } | undefined): string {
  if (!error) return 'failed';
  const { name, recoveryHint } = BAPError.fromWire(error);
  const message = error.message.startsWith(name) ? error.message : `${name}: ${error.message}`;
  return recoveryHint ? `${message} Hint: ${recoveryHint}` : message;
}

/** A step's result without what the header already says (page, URL) or nobody reads (headers). */
function brief(value: object): string {
  const { pageId: _p, url: _u, headers: _h, ...rest } = value as Record<string, unknown>;
  const json = JSON.stringify(rest);
  return json.length > 300 ? `${json.slice(0, 300)}…` : json;
}
