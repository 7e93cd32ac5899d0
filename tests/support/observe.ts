import type { BAPClient } from '@browseragentprotocol/client';
import type { MethodResult, Selector } from '@browseragentprotocol/protocol';

export const css = (value: string): Selector => ({ type: 'css', value });

/** observe/element for one selector, with the properties tests read most. */
export function inspect(
  client: BAPClient,
  selector: Selector,
  pageId?: string,
): Promise<MethodResult<'observe/element'>> {
  return client.call('observe/element', {
    pageId,
    selector,
    properties: ['visible', 'enabled', 'checked', 'focused', 'text', 'value', 'boundingBox', 'role', 'name', 'tagName'],
  });
}

export async function textOf(client: BAPClient, selector: Selector, pageId?: string): Promise<string> {
  const result = await client.call('observe/element', { pageId, selector, properties: ['text'] });
  if (!result.found) throw new Error(`no element for ${JSON.stringify(selector)}`);
  return result.text ?? '';
}

export async function valueOf(client: BAPClient, selector: Selector, pageId?: string): Promise<string | null | undefined> {
  const result = await client.call('observe/element', { pageId, selector, properties: ['value'] });
  if (!result.found) throw new Error(`no element for ${JSON.stringify(selector)}`);
  return result.value;
}

/** The AI snapshot of a page (YAML with `[ref=@eN]`). */
export async function snapshotOf(client: BAPClient, pageId?: string): Promise<string> {
  return (await client.call('observe/ariaSnapshot', { pageId })).snapshot;
}
