import { Ajv } from 'ajv';
import { BAPError, ErrorCodes, type MethodResult } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { css, textOf } from './support/observe.js';

let h: Harness;
// Formats are the server's to check; here only the shape matters.
const ajv = new Ajv({ strict: false, validateFormats: false });

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.stop();
});

type Schema = Record<string, unknown>;
type ExtractResult = MethodResult<'agent/extract'>;

async function open(path: string): Promise<string> {
  return (await h.client.call('page/create', { url: h.url(path) })).id;
}

/** agent/extract, with its data checked against the schema here too. */
async function extract(pageId: string, schema: Schema, options: { instruction?: string; maxItems?: number; selector?: ReturnType<typeof css> } = {}): Promise<ExtractResult> {
  const result = await h.client.call('agent/extract', { pageId, schema, ...options });
  expect(ajv.validate(schema, result.data), ajv.errorsText()).toBe(true);
  return result;
}

async function failure(call: Promise<unknown>): Promise<BAPError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BAPError);
  return error as BAPError;
}

const product = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'number' }, stock: { type: 'integer' } },
  required: ['name', 'price', 'stock'],
};

describe('agent/extract: tables and lists', () => {
  it('reads a product table into objects, each value with the ref of its cell', async () => {
    const pageId = await open('extract-table.html');
    const result = await extract(pageId, { type: 'array', items: product });
    expect(result.data).toEqual([
      { name: 'Aero 14', price: 1299, stock: 12 },
      { name: 'Blade 16', price: 2499.99, stock: 3 },
      { name: 'Chrome 11', price: 349, stock: 0 },
    ]);
    expect(result.url).toBe(h.url('extract-table.html'));
    expect(result.sources).toHaveLength(9);
    const cells = ['Aero 14', '$1,299.00', '12', 'Blade 16', '$2,499.99', '3', 'Chrome 11', '$349.00', '0'];
    for (const [i, source] of result.sources.entries()) {
      expect(source.from).toBe('table');
      expect(await textOf(h.client, { type: 'ref', ref: source.ref! }, pageId), source.path).toBe(cells[i]);
    }
  });

  it('reads a card list: heading as title, money as price, the heading link as an absolute url', async () => {
    const pageId = await open('extract-cards.html');
    const card = {
      type: 'object',
      properties: { title: { type: 'string' }, price: { type: 'number' }, url: { type: 'string', format: 'uri' }, rating: { type: 'number' } },
      required: ['title', 'price', 'url'],
    };
    const result = await extract(pageId, { type: 'object', properties: { products: { type: 'array', items: card } }, required: ['products'] });
    expect(result.data).toEqual({
      products: [
        { title: 'Desk lamp', price: 39.9, url: h.url('p/desk-lamp'), rating: 4.2 },
        { title: 'Office chair', price: 189, url: h.url('p/office-chair'), rating: 4.7 },
        { title: 'Standing desk', price: 449, url: h.url('p/standing-desk'), rating: 4.5 },
      ],
    });
    const price = result.sources.find((s) => s.path === '/products/1/price')!;
    expect(price.from).toBe('list');
    expect(await textOf(h.client, { type: 'ref', ref: price.ref! }, pageId)).toBe('€189.00');
  });

  it('lets the instruction pick between equally good tables, and `selector` restrict the page', async () => {
    const pageId = await open('extract-tables.html');
    const schema = { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } } } };
    const names = (r: ExtractResult) => (r.data as { name: string }[]).map((item) => item.name);
    expect(names(await extract(pageId, schema))).toEqual(['Aero 14', 'Blade 16']);
    expect(names(await extract(pageId, schema, { instruction: 'the phone price list' }))).toEqual(['Pixel 9', 'Galaxy S25', 'Nokia 3310']);
    expect(names(await extract(pageId, schema, { selector: css('#phones') }))).toEqual(['Pixel 9', 'Galaxy S25', 'Nokia 3310']);
    expect(names(await extract(pageId, schema, { selector: css('#phones'), maxItems: 2 }))).toEqual(['Pixel 9', 'Galaxy S25']);
  });

  it('reads arrays of strings from lists, the navigation when the name says so', async () => {
    const pageId = await open('extract-cards.html');
    const schema = { type: 'object', properties: { navigation: { type: 'array', items: { type: 'string' } } } };
    expect((await extract(pageId, schema)).data).toEqual({ navigation: ['Home', 'Shop', 'About'] });
  });
});

describe('agent/extract: forms, definitions, metadata', () => {
  it('reads a filled form by its labels and never returns a password', async () => {
    const pageId = await open('extract-form.html');
    await h.client.call('action/fill', { pageId, selector: { type: 'label', value: 'Email address' }, value: 'ada@example.com' });
    await h.client.call('action/fill', { pageId, selector: { type: 'label', value: 'Password' }, value: 'correct-horse-42' });
    await h.client.call('action/select', { pageId, selector: { type: 'label', value: 'Country' }, values: 'France' });
    await h.client.call('action/check', { pageId, selector: { type: 'label', value: 'Subscribe to the newsletter' } });
    const schema = {
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email' },
        country: { type: 'string', enum: ['Germany', 'France', 'Japan'] },
        subscribe: { type: 'boolean' },
        password: { type: 'string' },
        secret: { type: 'string', 'x-selector': 'input[type=password]' },
      },
      required: ['email', 'country', 'subscribe'],
    };
    const result = await extract(pageId, schema);
    expect(result.data).toEqual({ email: 'ada@example.com', country: 'France', subscribe: true });
    expect(result.sources.map((s) => s.from)).toEqual(['form', 'form', 'form']);
    expect(JSON.stringify(result)).not.toContain('correct-horse-42');

    const required = await failure(h.client.call('agent/extract', { pageId, schema: { ...schema, required: ['password'] } }));
    expect(required.code).toBe(ErrorCodes.ActionFailed);
    expect(JSON.stringify(required)).not.toContain('correct-horse-42');
  });

  it('reads definition lists and "Label: value" text, and reads an x-selector hint with its ref', async () => {
    const pageId = await open('extract-details.html');
    const schema = {
      type: 'object',
      properties: {
        author: { type: 'string' },
        published: { type: 'integer' },
        pageCount: { type: 'integer' },
        inPrint: { type: 'boolean' },
        publisher: { type: 'string' },
        score: { type: 'number', 'x-selector': '.score .value' },
      },
      required: ['author', 'published', 'pageCount', 'inPrint', 'publisher', 'score'],
    };
    const result = await extract(pageId, schema);
    expect(result.data).toEqual({ author: 'Ursula K. Le Guin', published: 1969, pageCount: 304, inPrint: true, publisher: 'Ace Books', score: 9.1 });
    const from = Object.fromEntries(result.sources.map((s) => [s.path, s.from]));
    expect(from).toEqual({ '/author': 'definitions', '/published': 'definitions', '/pageCount': 'definitions', '/inPrint': 'definitions', '/publisher': 'section', '/score': 'selector' });
    // A bare <span> has no ref of its own: the hint's source is the element around it.
    const shown = { '/author': 'Ursula K. Le Guin', '/published': '1969', '/pageCount': '304', '/inPrint': 'Yes', '/publisher': 'Publisher: Ace Books', '/score': '9.1 / 10' };
    for (const source of result.sources) {
      expect(await textOf(h.client, { type: 'ref', ref: source.ref! }, pageId), source.path).toBe(shown[source.path as keyof typeof shown]);
    }
    const related = await extract(pageId, { type: 'object', properties: { publisher: { type: 'string' } } }, { selector: css('#related') });
    expect(related.data).toEqual({ publisher: 'Gollancz' });
  });

  it('resolves x-selector hints relative to each item of a collection', async () => {
    const pageId = await open('extract-table.html');
    const schema = { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, rating: { type: 'number', 'x-selector': 'td:nth-child(4)' } } } };
    const result = await extract(pageId, schema);
    expect(result.data).toEqual([
      { name: 'Aero 14', rating: 4.5 },
      { name: 'Blade 16', rating: 4.8 },
      { name: 'Chrome 11', rating: 3.9 },
    ]);
    const rating = result.sources.find((s) => s.path === '/2/rating')!;
    expect(rating.from).toBe('selector');
    expect(await textOf(h.client, { type: 'ref', ref: rating.ref! }, pageId)).toBe('3.9 stars');
  });

  it('reads JSON-LD and OpenGraph metadata, without refs', async () => {
    const pageId = await open('extract-metadata.html');
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        sku: { type: 'string' },
        brand: { type: 'string' },
        offers: { type: 'object', properties: { price: { type: 'number' }, priceCurrency: { type: 'string' } }, required: ['price'] },
        availability: { type: 'string', enum: ['InStock', 'OutOfStock'] },
        title: { type: 'string' },
        image: { type: 'string', format: 'uri' },
        siteName: { type: 'string' },
        description: { type: 'string' },
      },
      required: ['name', 'sku', 'offers', 'title', 'image'],
    };
    const result = await extract(pageId, schema);
    expect(result.data).toEqual({
      name: 'Trail Runner 3',
      sku: 'TR3-42',
      brand: 'Example Outdoor',
      offers: { price: 129.95, priceCurrency: 'EUR' },
      availability: 'InStock',
      title: 'Trail runner 3',
      image: h.url('img/trail-runner-3.jpg'),
      siteName: 'Example Outdoor',
      description: 'A light trail shoe with a grippy sole.',
    });
    const from = Object.fromEntries(result.sources.map((s) => [s.path, s.from]));
    expect(from).toMatchObject({ '/name': 'json-ld', '/offers/price': 'json-ld', '/title': 'opengraph', '/image': 'opengraph', '/description': 'metadata' });
    expect(result.sources.every((s) => s.ref === undefined)).toBe(true);
  });
});

describe('agent/extract: errors', () => {
  it('rejects a schema ajv cannot compile, or a hint the browser cannot parse, with -32602 naming params.schema', async () => {
    const pageId = await open('extract-table.html');
    const invalid = await failure(h.client.call('agent/extract', { pageId, schema: { type: 'objekt' } }));
    expect(invalid.code).toBe(ErrorCodes.InvalidParams);
    expect(invalid.message).toMatch(/^params\.schema: .*type/);
    const hint = await failure(h.client.call('agent/extract', { pageId, schema: { type: 'object', properties: { a: { type: 'string', 'x-selector': 'td[[' } } } }));
    expect(hint.code).toBe(ErrorCodes.InvalidParams);
    expect(hint.message).toContain('params.schema');
    expect(hint.message).toContain('/a');
  });

  it('fails with -32021 naming the paths the page cannot satisfy, instead of making data up', async () => {
    const pageId = await open('extract-table.html');
    const missing = await failure(h.client.call('agent/extract', { pageId, schema: { type: 'object', properties: { sku: { type: 'string' }, name: { type: 'string' } }, required: ['sku'] } }));
    expect(missing.code).toBe(ErrorCodes.ActionFailed);
    expect(missing.message).toContain('/sku');
    expect(missing.data.details).toMatchObject({ unsatisfied: [{ path: '/sku' }] });
    expect(missing.recoveryHint).toContain('x-selector');

    const mismatch = { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, rating: { type: 'integer' } }, required: ['name', 'rating'] } };
    const typed = await failure(h.client.call('agent/extract', { pageId, schema: mismatch }));
    expect(typed.code).toBe(ErrorCodes.ActionFailed);
    expect(typed.message).toContain('/0/rating');
    expect(typed.message).toContain('not an integer');

    const unmatched = { type: 'array', items: { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'] } };
    const none = await failure(h.client.call('agent/extract', { pageId, schema: unmatched }));
    expect(none.code).toBe(ErrorCodes.ActionFailed);
    expect(none.message).toMatch(/no table or list/);
  });
});
