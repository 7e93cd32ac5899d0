import { createHash } from 'node:crypto';
import { BAPClient, BAPClientError, BAPStream } from '@browseragentprotocol/client';
import { ErrorCodes } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import { imageSize } from './support/images.js';
import { TcpProxy } from './support/tcpProxy.js';

let h: Harness;
let pageId: string;

beforeAll(async () => {
  h = await startHarness({ server: { maxStreams: 2 } });
  pageId = (await h.client.call('page/create', { url: h.url('tall-noise.html'), viewport: { width: 1280, height: 800 } })).id;
});

afterAll(async () => {
  await h?.stop();
});

/** Every stream notification the client receives, in order. */
function recordStreamNotifications(client: BAPClient): { method: string; params: { streamId: string; index?: number } }[] {
  const seen: { method: string; params: { streamId: string; index?: number } }[] = [];
  client.on('notification', (n) => {
    if (n.method.startsWith('stream/')) seen.push(n as (typeof seen)[number]);
  });
  return seen;
}

describe('streaming', () => {
  it('streams a multi-megabyte full-page screenshot in order, with a checksum the client verifies', async () => {
    const seen = recordStreamNotifications(h.client);
    const stream = await h.client.stream('observe/screenshot', { pageId, options: { fullPage: true }, chunkSize: 256 * 1024 });
    expect(stream.contentType).toBe('image/png');
    expect(stream.totalSize).toBeGreaterThan(5 * 1024 * 1024);
    const bytes = Buffer.from(await stream.bytes());
    expect(bytes.length).toBe(stream.totalSize);
    expect(imageSize(bytes)).toEqual({ format: 'png', width: 1280, height: 4000 });
    const mine = seen.filter((n) => n.params.streamId === stream.streamId);
    const chunks = mine.filter((n) => n.method === 'stream/chunk');
    expect(chunks.map((n) => n.params.index)).toEqual(chunks.map((_, i) => i));
    expect(chunks.length).toBe(Math.ceil(stream.totalSize / (256 * 1024)));
    const end = mine.at(-1) as unknown as { method: string; params: { checksum: string; totalChunks: number } };
    expect(end.method).toBe('stream/end');
    expect(end.params.checksum).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('iterates chunks with for await; text payloads stream as UTF-8', async () => {
    const small = (await h.client.call('page/create', { url: h.url('form.html') })).id;
    const plain = await h.client.call('observe/dom', { pageId: small });
    const stream = await h.client.stream('observe/dom', { pageId: small, chunkSize: 1024 });
    expect(stream.contentType).toBe('text/html; charset=utf-8');
    const sizes: number[] = [];
    const parts: Uint8Array[] = [];
    for await (const chunk of stream) {
      sizes.push(chunk.length);
      parts.push(chunk);
    }
    expect(sizes.slice(0, -1).every((s) => s === 1024)).toBe(true);
    expect(Buffer.concat(parts).toString('utf8')).toBe(plain.html);

    const snapshot = await h.client.stream('observe/ariaSnapshot', { pageId: small });
    expect(await snapshot.text()).toBe((await h.client.call('observe/ariaSnapshot', { pageId: small })).snapshot);
    const markdown = await h.client.stream('observe/content', { pageId: small, format: 'markdown' });
    expect(markdown.contentType).toBe('text/markdown; charset=utf-8');
    expect(await markdown.text()).toBe((await h.client.call('observe/content', { pageId: small, format: 'markdown' })).content);
    const pdf = await h.client.stream('observe/pdf', { pageId: small });
    expect(pdf.contentType).toBe('application/pdf');
    expect(Buffer.from(await pdf.bytes()).subarray(0, 5).toString()).toBe('%PDF-');
    await h.client.call('page/close', { pageId: small });
  });

  it('stream/cancel stops the chunks mid-stream', async () => {
    const seen = recordStreamNotifications(h.client);
    const stream = await h.client.stream('observe/screenshot', { pageId, options: { fullPage: true }, chunkSize: 16 * 1024 });
    const total = Math.ceil(stream.totalSize / (16 * 1024));
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    await stream.cancel();
    await expect(iterator.next()).rejects.toThrow(/cancelled/);
    const atCancel = seen.filter((n) => n.params.streamId === stream.streamId).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const mine = seen.filter((n) => n.params.streamId === stream.streamId);
    expect(mine.length).toBe(atCancel);
    expect(mine.length).toBeLessThan(total / 2);
    expect(mine.some((n) => n.method === 'stream/end')).toBe(false);
    await expect(h.client.call('stream/cancel', { streamId: stream.streamId })).rejects.toMatchObject({ code: ErrorCodes.StreamNotFound });
  });

  it('refuses more concurrent streams than the limit, and serves again once one ends', async () => {
    const first = h.client.stream('observe/screenshot', { pageId, options: { fullPage: true } });
    const second = h.client.stream('observe/screenshot', { pageId, options: { fullPage: true } });
    const third = h.client.stream('observe/screenshot', { pageId, options: { fullPage: true } });
    const outcomes = await Promise.allSettled([first, second, third]);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({
      code: ErrorCodes.ResourceLimitExceeded,
      data: { details: { resource: 'streams', limit: 2 } },
    });
    for (const o of outcomes) if (o.status === 'fulfilled') await o.value.bytes();
    const again = await h.client.stream('observe/dom', { pageId });
    expect((await again.text()).length).toBe(again.totalSize);
  });

  it('sends the reply before the first chunk', async () => {
    const raw = await h.rawSocket();
    await raw.handshake();
    const created = (await raw.request('page/create', { url: h.url('form.html') })) as { result: { id: string } };
    await raw.sendJson({ jsonrpc: '2.0', id: 99, method: 'observe/screenshot', params: { pageId: created.result.id, stream: true, chunkSize: 1024 } });
    const first = (await raw.next()) as { id?: number; method?: string };
    expect(first.id).toBe(99);
    expect(((await raw.next()) as { method: string }).method).toBe('stream/chunk');
  });

  it('ends a stream the client does not read with stream/error after the timeout', async () => {
    const stalled = await startHarness({ server: { streamTimeoutMs: 500 }, connect: false });
    const proxy = await TcpProxy.start(Number(new URL(stalled.server.url).port));
    const client = new BAPClient(`ws://127.0.0.1:${proxy.port}/`);
    try {
      await client.connect();
      const tall = (await client.call('page/create', { url: stalled.url('tall-noise.html'), viewport: { width: 1280, height: 800 } })).id;
      proxy.stall();
      const pending = client.stream('observe/screenshot', { pageId: tall, options: { fullPage: true }, chunkSize: 1_048_576 });
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      proxy.resume();
      const stream = await pending;
      const error = await stream.bytes().then(
        () => null,
        (e: unknown) => e as { code: number; message: string },
      );
      expect(error?.code).toBe(ErrorCodes.Timeout);
      expect(error?.message).toContain('not delivered within 500 ms');
    } finally {
      await client.close();
      await proxy.close();
      await stalled.stop();
    }
  });

  it('rejects a payload whose checksum does not match', async () => {
    const stream = new BAPStream({ streamId: 's', totalSize: 3, contentType: 'text/plain', chunkSize: 3 }, async () => ({}));
    stream.receive({ method: 'stream/chunk', params: { streamId: 's', index: 0, data: Buffer.from('abc').toString('base64'), offset: 0, size: 3 } });
    stream.receive({ method: 'stream/end', params: { streamId: 's', totalChunks: 1, totalSize: 3, checksum: '0'.repeat(64) } });
    await expect(stream.bytes()).rejects.toSatisfy((e: unknown) => BAPClientError.is(e, 'ESTREAM') && /SHA-256/.test((e as Error).message));
  });
});
