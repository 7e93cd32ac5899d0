import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { css, textOf } from './support/observe.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

describe('discovery/discover', () => {
  it('finds a declarative WebMCP tool (<form toolname>) with its input schema', async () => {
    const { pageId } = await h.client.call('page/navigate', { url: h.url('webmcp.html') });
    const result = await h.client.call('discovery/discover', { pageId, options: { includeInputSchemas: true } });
    const tool = result.tools.find((t) => t.name === 'search_products');
    expect(tool).toMatchObject({
      name: 'search_products',
      description: 'Search the product catalogue by keyword and price',
      source: 'webmcp-declarative',
    });
    expect(result.totalDiscovered).toBeGreaterThanOrEqual(result.tools.length);

    const schema = tool!.inputSchema as { type?: string; properties?: Record<string, { type?: string; description?: string }>; required?: string[] };
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual(['max_price', 'query', 'sort']);
    expect(schema.properties!.query!.description).toBe('Words to look for in product names');
    expect(schema.properties!.max_price).toMatchObject({ description: 'Highest price in euros' });
    expect(['number', 'integer']).toContain(schema.properties!.max_price!.type);
    expect(schema.properties!.sort).toMatchObject({ description: 'Order of the results' });
    expect(schema.required).toEqual(['query']);

    // formSelector points at the form.
    expect(tool!.formSelector).toBeTruthy();
    const form = await h.client.call('observe/element', { pageId, selector: css(tool!.formSelector!), properties: ['tagName', 'attributes'] });
    expect(form).toMatchObject({ found: true, count: 1 });
    expect(form.attributes).toMatchObject({ toolname: 'search_products' });
  });

  it('reports tools registered through navigator.modelContext when the browser has it', async () => {
    const { pageId } = await h.client.call('page/navigate', { url: h.url('webmcp.html') });
    const registered = (await textOf(h.client, css('#imperative-status'), pageId)) === 'registered';
    const result = await h.client.call('discovery/discover', { pageId, options: { includeInputSchemas: true } });
    const imperative = result.tools.filter((t) => t.source === 'webmcp-imperative');
    if (registered) {
      expect(imperative).toEqual([
        expect.objectContaining({
          name: 'add_to_cart',
          description: 'Add a product to the cart',
          inputSchema: expect.objectContaining({ required: ['sku'] }),
        }),
      ]);
    } else {
      expect(imperative).toEqual([]);
    }
  });

  it('honours maxTools and includeInputSchemas:false', async () => {
    const { pageId } = await h.client.call('page/navigate', { url: h.url('webmcp.html') });
    const limited = await h.client.call('discovery/discover', { pageId, options: { maxTools: 1, includeInputSchemas: false } });
    expect(limited.tools).toHaveLength(1);
    expect(limited.tools[0]!.inputSchema).toBeUndefined();
    expect(limited.totalDiscovered).toBeGreaterThanOrEqual(1);
  });

  it('finds nothing on a page without tools', async () => {
    const { pageId } = await h.client.call('page/navigate', { url: h.url('list.html') });
    const result = await h.client.call('discovery/discover', { pageId });
    expect(result).toMatchObject({ tools: [], totalDiscovered: 0 });
  });
});
