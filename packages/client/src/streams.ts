import {
  BAPError,
  type NotificationParams,
  type StreamStartResult,
} from '@browseragentprotocol/protocol';
import { BAPClientError } from './errors.js';

type Chunk = NotificationParams<'stream/chunk'>;
type End = NotificationParams<'stream/end'>;
type Failure = NotificationParams<'stream/error'>;
type StreamMessage = { method: 'stream/chunk'; params: Chunk } | { method: 'stream/end'; params: End } | { method: 'stream/error'; params: Failure };

/** Notifications for a stream whose announcing reply has not been handled yet are held this long. */
const UNCLAIMED_TTL_MS = 10_000;

/**
 * One stream's payload as it arrives: iterate the chunks (`for await`), or wait for the whole of
 * it with `bytes()`/`text()`, which check the size and the SHA-256 the server sent at the end.
 */
export class BAPStream implements AsyncIterable<Uint8Array> {
  readonly streamId: string;
  readonly totalSize: number;
  readonly contentType: string;
  private readonly chunks: Uint8Array[] = [];
  private received = 0;
  private nextIndex = 0;
  private end: End | undefined;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private consumed = false;

  constructor(
    start: StreamStartResult,
    private readonly cancelOnServer: (streamId: string) => Promise<unknown>,
  ) {
    this.streamId = start.streamId;
    this.totalSize = start.totalSize;
    this.contentType = start.contentType;
  }

  /** Stops the stream on the server; iteration then ends with a StreamCancelled-like ESTREAM error. */
  async cancel(): Promise<void> {
    this.fail(new BAPClientError('ESTREAM', `Stream ${this.streamId} was cancelled`));
    await this.cancelOnServer(this.streamId);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (this.consumed) throw new BAPClientError('ESTREAM', 'A stream can be read once');
    this.consumed = true;
    for (let i = 0; ; i++) {
      while (i >= this.chunks.length && !this.end && !this.failure) await new Promise<void>((resolve) => (this.wake = resolve));
      if (this.failure) throw this.failure;
      if (i < this.chunks.length) {
        yield this.chunks[i]!;
        continue;
      }
      await this.verify();
      return;
    }
  }

  /** The whole payload, once the stream has ended and its checksum matched. */
  async bytes(): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for await (const chunk of this) parts.push(chunk);
    return concat(parts);
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  /** @internal Called by the client for each stream notification of this stream. */
  receive(message: StreamMessage): void {
    if (this.end || this.failure) return;
    if (message.method === 'stream/chunk') {
      const { index, data } = message.params;
      if (index !== this.nextIndex) return this.fail(new BAPClientError('ESTREAM', `Stream ${this.streamId}: chunk ${this.nextIndex} missing (got ${index})`));
      const bytes = fromBase64(data);
      this.nextIndex++;
      this.received += bytes.length;
      this.chunks.push(bytes);
    } else if (message.method === 'stream/end') {
      this.end = message.params;
    } else {
      this.failure = BAPError.fromWire(message.params.error);
    }
    this.poke();
  }

  /** @internal The connection is gone: no more chunks will come. */
  fail(error: Error): void {
    if (this.end || this.failure) return;
    this.failure = error;
    this.poke();
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async verify(): Promise<void> {
    const end = this.end!;
    if (end.totalChunks !== this.nextIndex || end.totalSize !== this.received) {
      throw new BAPClientError('ESTREAM', `Stream ${this.streamId}: got ${this.nextIndex} chunks / ${this.received} bytes, the server sent ${end.totalChunks} / ${end.totalSize}`);
    }
    const digest = await globalThis.crypto.subtle.digest('SHA-256', concat(this.chunks) as Uint8Array<ArrayBuffer>);
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
    if (hex !== end.checksum) throw new BAPClientError('ESTREAM', `Stream ${this.streamId}: SHA-256 mismatch`);
  }
}

/** Routes stream notifications to their BAPStream, holding early ones until the stream is claimed. */
export class StreamRouter {
  private readonly streams = new Map<string, BAPStream>();
  private readonly unclaimed = new Map<string, { messages: StreamMessage[]; timer: ReturnType<typeof setTimeout> }>();

  /** True when the notification was a stream's. */
  route(method: string, params: unknown): boolean {
    if (method !== 'stream/chunk' && method !== 'stream/end' && method !== 'stream/error') return false;
    const message = { method, params } as StreamMessage;
    const streamId = message.params.streamId;
    const stream = this.streams.get(streamId);
    if (stream) {
      stream.receive(message);
      if (method !== 'stream/chunk') this.streams.delete(streamId);
      return true;
    }
    let held = this.unclaimed.get(streamId);
    if (!held) {
      const timer = setTimeout(() => this.unclaimed.delete(streamId), UNCLAIMED_TTL_MS);
      (timer as { unref?: () => void }).unref?.();
      this.unclaimed.set(streamId, (held = { messages: [], timer }));
    }
    held.messages.push(message);
    return true;
  }

  claim(stream: BAPStream): BAPStream {
    this.streams.set(stream.streamId, stream);
    const held = this.unclaimed.get(stream.streamId);
    if (held) {
      clearTimeout(held.timer);
      this.unclaimed.delete(stream.streamId);
      for (const message of held.messages) this.route(message.method, message.params);
    }
    return stream;
  }

  /** The connection closed: every running stream fails. */
  failAll(error: Error): void {
    for (const stream of this.streams.values()) stream.fail(error);
    this.streams.clear();
  }
}

function fromBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
