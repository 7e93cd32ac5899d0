import type { HttpError } from '@browseragentprotocol/protocol';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';

/** One REST answer: status, headers, and the body as JSON (when it is) and as bytes. */
export interface RestReply {
  status: number;
  headers: Headers;
  json: unknown;
  bytes: Buffer;
}

/** The `{error}` of a refusal. */
export function errorOf(reply: RestReply): HttpError['error'] {
  return (reply.json as HttpError).error;
}

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; content?: Record<string, unknown> }> }>> } & Record<string, unknown>;

/**
 * Node `fetch` against a server's HTTP routes, checking every answer against the OpenAPI
 * document the server serves: its status is documented for the route, its content type too,
 * and a JSON body matches the documented schema.
 */
export class RestClient {
  private readonly ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

  private constructor(
    readonly base: string,
    readonly doc: Doc,
    private readonly headers: Record<string, string>,
  ) {
    this.ajv.addSchema(doc, 'openapi');
  }

  /** A client of `base`; the document is fetched from `docFrom` (default `base`), with these headers. */
  static async open(base: string, headers: Record<string, string> = {}, doc?: Doc): Promise<RestClient> {
    const fetched = doc ?? ((await (await fetch(`${base}/openapi.json`, { headers })).json()) as Doc);
    return new RestClient(base, fetched, headers);
  }

  /** The same document, other credentials. */
  as(headers: Record<string, string>, base = this.base): RestClient {
    return new RestClient(base, this.doc, headers);
  }

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RestReply> {
    const init: RequestInit = { method, headers: { ...this.headers, ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const response = await fetch(`${this.base}${path}`, init);
    const bytes = Buffer.from(await response.arrayBuffer());
    const type = response.headers.get('content-type') ?? '';
    const reply: RestReply = { status: response.status, headers: response.headers, json: type.includes('json') ? JSON.parse(bytes.toString('utf8')) : undefined, bytes };
    this.check(method, path, reply, type);
    return reply;
  }

  get = (path: string, headers?: Record<string, string>) => this.request('GET', path, undefined, headers);
  post = (path: string, body: unknown = {}, headers?: Record<string, string>) => this.request('POST', path, body, headers);
  delete = (path: string) => this.request('DELETE', path);

  /** The JSON body of a 200, failing the test with the error otherwise. */
  async ok<T = Record<string, unknown>>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const reply = await this.request(method, path, method === 'POST' ? (body ?? {}) : undefined);
    expect(reply.status, `${method} ${path}: ${reply.bytes.toString('utf8').slice(0, 500)}`).toBe(200);
    return reply.json as T;
  }

  /** The status, content type and body are what the document says for this route. */
  private check(method: string, path: string, reply: RestReply, type: string): void {
    const template = Object.keys(this.doc.paths).find((t) => new RegExp(`^${t.replace(/\{\w+\}/g, '[^/]*')}$`).test(path.split('?')[0]!));
    const operation = template ? this.doc.paths[template]?.[method.toLowerCase()] : undefined;
    if (!template || !operation) return;
    let pointer = `/paths/${escape(template)}/${method.toLowerCase()}/responses/${reply.status}`;
    let response = operation.responses[String(reply.status)];
    expect(response, `${method} ${path}: status ${reply.status} is not documented`).toBeDefined();
    if (response?.$ref) {
      pointer = response.$ref.slice(1);
      response = pointer.split('/').slice(1).reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, this.doc) as typeof response;
    }
    const media = type.split(';')[0]!.trim();
    if (!response?.content) return;
    expect(Object.keys(response.content), `${method} ${path}: content type ${media}`).toContain(media);
    if (media !== 'application/json') return;
    const validate = this.ajv.getSchema(`openapi#${pointer}/content/application~1json/schema`)!;
    expect(validate(reply.json), `${method} ${path} ${reply.status}: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(reply.json).slice(0, 500)}`).toBe(true);
  }
}

function escape(segment: string): string {
  return encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'));
}

/** The ref a snapshot printed for `role "name"`, or for `role: text` (e.g. `e5`). */
export function refOf(snapshot: string, role: string, name: string): string {
  const named = (l: string) => l.includes(`- ${role} ${JSON.stringify(name)}`);
  const text = (l: string) => new RegExp(`- ${role} .*\\]: ("?)${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\1$`).test(l);
  const line = snapshot.split('\n').find((l) => (named(l) || text(l)) && l.includes('[ref='));
  const ref = /\[ref=@?([\w-]+)\]/.exec(line ?? '')?.[1];
  if (!ref) throw new Error(`no ref for ${role} "${name}" in:\n${snapshot}`);
  return ref;
}
