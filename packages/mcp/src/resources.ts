import type { BAPClient } from '@browseragentprotocol/client';
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import { observationBody } from './pageReport.js';

/** The active tab, three ways: its state as JSON, its interactive elements, a screenshot. */
export const pageResources: Resource[] = [
  { uri: 'bap://tab/state', name: 'Page state', description: 'Tabs, the active tab’s URL and title, open dialogs, frames.', mimeType: 'application/json' },
  { uri: 'bap://tab/snapshot', name: 'Page snapshot', description: 'The active tab’s interactive elements with refs.', mimeType: 'text/plain' },
  { uri: 'bap://tab/screenshot', name: 'Screenshot', description: 'The active tab’s viewport as PNG.', mimeType: 'image/png' },
];

/** Characters of the snapshot resource; the observe tool pages through the rest. */
const SNAPSHOT_BUDGET = 40_000;

export async function readPageResource(bap: BAPClient, pageId: string, uri: string): Promise<ReadResourceResult> {
  switch (uri) {
    case 'bap://tab/state': {
      const [tabs, o] = await Promise.all([bap.listPages(), bap.observe({ pageId, includeInteractiveElements: false })]);
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ ...tabs, page: o.metadata }) }] };
    }
    case 'bap://tab/snapshot': {
      const o = await bap.observe({ pageId, maxChars: SNAPSHOT_BUDGET });
      return { contents: [{ uri, mimeType: 'text/plain', text: observationBody(o) }] };
    }
    case 'bap://tab/screenshot': {
      const shot = await bap.screenshot({ pageId });
      return { contents: [{ uri, mimeType: 'image/png', blob: shot.data }] };
    }
    default:
      throw new Error(`Unknown resource ${uri}; the resources are ${pageResources.map((r) => r.uri).join(', ')}.`);
  }
}
