import { restRoutes, type TokenGrant } from '@browseragentprotocol/protocol';
import { startServer } from '@browseragentprotocol/server-playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from './support/harness.js';
import { RestClient, errorOf } from './support/restClient.js';

// The REST contract's refusals over real HTTP: each with the status httpStatus maps its BAP
// error to, the `{error}` body, and the field or scope it is about.

const TOKENS: Record<string, TokenGrant> = {
  'reader-token-0123456789': { name: 'reader', scopes: ['readonly'] },
  'agent-token-0123456789': { name: 'agent', scopes: ['standard'] },
  'admin-token-0123456789': { name: 'admin', scopes: ['privileged'] },
};

const servers: RunningServer[] = [];
let rest: RestClient;

async function server(options: Parameters<typeof startServer>[0] = {}): Promise<RunningServer> {
  const started = await startServer({ host: '127.0.0.1', port: 0, logger: false, validateResults: true, ...options });
  servers.push(started);
  return started;
}

beforeAll(async () => {
  const plain = await server({ maxMessageBytes: 4_096 });
  rest = await RestClient.open(plain.httpUrl);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('REST refusals', () => {
  it('bad input is 400 with a message naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/navigate', {}, 'Invalid body: body.url: Invalid input: expected string, received undefined'],
      ['POST', '/navigate', { url: 'http://127.0.0.1:9/', tab: 'page-1' }, 'body.tab'],
      ['POST', '/navigate', { url: 'http://127.0.0.1:9/', targetId: '' }, 'body.targetId'],
      ['POST', '/act', { kind: 'scroll' }, 'body.kind'],
      ['POST', '/act', { kind: 'click' }, 'body.ref'],
      ['POST', '/act', { kind: 'click', ref: 'not a ref' }, 'body.ref: a ref such as "e5" from GET /snapshot'],
      ['POST', '/act', { kind: 'fill', fields: [{ ref: 'e1', value: 3 }] }, 'body.fields.0.value'],
      ['POST', '/act', { kind: 'wait', text: 'a', timeMs: 5 }, 'give exactly one of timeMs, text, textGone, selector, url, loadState (got timeMs, text)'],
      ['POST', '/act', { kind: 'resize', width: 0, height: 10 }, 'body.width'],
      ['POST', '/act', { kind: 'wait', text: 'a', timeoutMs: 0 }, 'body.timeoutMs'],
      ['POST', '/act', { kind: 'click', ref: 'e1', timeoutMs: 60_000 }, 'body.timeoutMs: Too big: expected number to be <=20000'],
      ['POST', '/screenshot', { type: 'gif' }, 'body.type'],
      ['POST', '/hooks/dialog', { promptText: 'x' }, 'body.accept'],
      ['POST', '/hooks/file-chooser', { paths: [] }, 'body.paths'],
      ['POST', '/start', { now: true }, 'body.now'],
      ['POST', '/act', [{ kind: 'close' }], 'body: Invalid input'],
      ['GET', '/snapshot?limit=lots', undefined, 'query.limit'],
      ['GET', '/snapshot?format=html', undefined, 'query.format'],
      ['GET', '/console?level=loud', undefined, 'query.level'],
      ['DELETE', '/tabs/', undefined, 'Invalid path: targetId'],
      ['DELETE', `/tabs/${'x'.repeat(65)}`, undefined, 'Invalid path: targetId'],
      ['DELETE', '/tabs/%E0%A4%A', undefined, 'not valid percent-encoding'],
    ];
    for (const [method, path, body, field] of cases) {
      const reply = await rest.request(method, path, body);
      expect(reply.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(errorOf(reply)).toMatchObject({ code: -32602, name: 'InvalidParams', data: { retryable: false } });
      expect(errorOf(reply).message).toContain(field);
    }
  });

  it('a body that is not JSON is 400; a body over the size limit is 413', async () => {
    const notJson = await rest.request('POST', '/navigate', '{"url": ');
    expect(notJson.status).toBe(400);
    expect(errorOf(notJson)).toMatchObject({ code: -32700, name: 'ParseError' });
    const large = await rest.request('POST', '/navigate', { url: `http://127.0.0.1:9/${'a'.repeat(5_000)}` });
    expect(large.status).toBe(413);
    expect(errorOf(large).message).toContain('exceeds the limit of 4096 bytes');
  });

  it('an unknown tab is 404', async () => {
    for (const reply of [
      await rest.post('/navigate', { url: 'http://127.0.0.1:9/', targetId: 'page-404' }),
      await rest.get('/snapshot?targetId=page-404'),
      await rest.get('/console?targetId=page-404'),
      await rest.post('/act', { kind: 'close', targetId: 'page-404' }),
      await rest.delete('/tabs/page-404'),
    ]) {
      expect(reply.status).toBe(404);
      expect(errorOf(reply)).toMatchObject({ name: 'PageNotFound', message: 'Page not found: page-404' });
    }
  });

  it('another HTTP method is 405 with Allow', async () => {
    const reply = await rest.get('/navigate');
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('POST');
    expect(errorOf(reply).message).toBe('Method Not Allowed: /navigate takes POST.');
  });

  it('evaluate on a server without allowEvaluate is 403, before any tab opens', async () => {
    const reply = await rest.post('/act', { kind: 'evaluate', expression: '1' });
    expect(reply.status).toBe(403);
    expect(errorOf(reply)).toMatchObject({ code: -32003, data: { details: { method: 'page/evaluate', option: 'allowEvaluate' } } });
    expect(errorOf(reply).message).toContain('bap serve --allow-evaluate');
    expect(await rest.ok('GET', '/tabs')).toEqual({ tabs: [], activeTargetId: null });
  });

  it('with tokens: none or a bad one is 401; a token without the scope is 403; each token has its own tabs', async () => {
    const secured = await server({ tokens: TOKENS, allowEvaluate: true });
    const as = (token?: string) => rest.as(token ? { authorization: `Bearer ${token}` } : {}, secured.httpUrl);

    for (const reply of [await as().get('/tabs'), await as('wrong-token-0123456789').get('/tabs')]) {
      expect(reply.status).toBe(401);
      expect(errorOf(reply)).toMatchObject({ code: -32003, name: 'Unauthorized' });
    }
    expect(errorOf(await as().get('/')).message).toContain('a token is required');

    const reader = as('reader-token-0123456789');
    expect(await reader.ok('GET', '/tabs')).toEqual({ tabs: [], activeTargetId: null });
    const navigate = await reader.post('/navigate', { url: 'http://127.0.0.1:9/' });
    expect(navigate.status).toBe(403);
    expect(errorOf(navigate)).toMatchObject({ name: 'Unauthorized', data: { details: { method: 'page/navigate', scope: 'page:navigate' } } });
    expect((await reader.post('/tabs/open')).status).toBe(403);

    // evaluate is enabled here, but only `eval` (privileged) may use it; the header and query forms of the token work too.
    const agent = await rest.as({ 'x-bap-token': 'agent-token-0123456789' }, secured.httpUrl).post('/act', { kind: 'evaluate', expression: '1 + 1' });
    expect(agent.status).toBe(403);
    expect(errorOf(agent).message).toContain('needs scope "eval"');
    const admin = rest.as({}, `${secured.httpUrl}`);
    const evaluated = await admin.post('/act?token=admin-token-0123456789', { kind: 'evaluate', expression: '1 + 1' });
    expect(evaluated.status).toBe(200);
    expect(evaluated.json).toEqual({ ok: true, kind: 'evaluate', value: 2 });
    expect((await reader.ok<{ tabs: unknown[] }>('GET', '/tabs')).tabs).toEqual([]);
  });

  it('over the rate limit is 429 with Retry-After', async () => {
    const limited = await server({ requestsPerSecond: 1 });
    const client = rest.as({}, limited.httpUrl);
    const replies = [];
    for (let i = 0; i < 5; i++) replies.push(await client.get('/tabs'));
    const refused = replies.find((r) => r.status === 429);
    expect(refused, JSON.stringify(replies.map((r) => r.status))).toBeDefined();
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(errorOf(refused!)).toMatchObject({ name: 'ResourceLimitExceeded', data: { retryable: true, details: { resource: 'requestsPerSecond' } } });
  });
});

describe('GET /openapi.json', () => {
  it('documents every REST route and the JSON-RPC routes, with their error responses', async () => {
    const doc = rest.doc as { openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const [name, route] of Object.entries(restRoutes)) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${name}: ${route.method} ${route.path}`).toBeDefined();
      expect(Object.keys(operation!.responses).sort()).toEqual(['200', ...route.errors.map(String)].sort());
    }
    expect(Object.keys(doc.paths['/rpc']!)).toEqual(['post', 'delete']);
    expect(Object.keys(doc.paths['/message']!)).toEqual(['post', 'delete']);
    expect(Object.keys(doc.paths['/events']!)).toEqual(['get']);
    expect(Object.keys(doc.paths['/act']!.post!.responses).sort()).toEqual(['200', '400', '401', '403', '404', '408', '409', '413', '422', '429']);
  });
});
