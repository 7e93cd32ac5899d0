import { createHash, randomUUID } from 'node:crypto';
import {
  BAPError,
  ErrorCodes,
  JSONRPC_VERSION,
  type NotificationName,
  type NotificationParams,
  type StreamSpec,
  type StreamStartResult,
} from '@browseragentprotocol/protocol';

const DEFAULT_CHUNK = 64 * 1024;
/** Chunks wait while this much is still queued on the socket, so a slow client slows the stream. */
const HIGH_WATER = 1024 * 1024;
const DRAIN_POLL_MS = 5;

export interface StreamSink {
  send(text: string): void;
  /** Bytes queued on the transport and not yet sent. */
  buffered(): number;
}

interface Running {
  cancelled: boolean;
}

/** The announcement that answers the request, and what starts the chunks once it is sent. */
export interface StreamOpened {
  start: StreamStartResult;
  send: () => void;
}

/** A stream's place under the limit, held while its method runs. */
export interface StreamPlace {
  open(result: Record<string, unknown>): StreamOpened;
  release(): void;
}

/**
 * The streams of one connection: turns a large result into stream/chunk notifications (after
 * the reply that announced the stream), ends them with a SHA-256, and stops them on
 * stream/cancel, on timeout and when the connection closes.
 */
export class StreamManager {
  private readonly running = new Map<string, Running>();
  /** Streams asked for whose method is still running. */
  private reserved = 0;

  constructor(
    private readonly sink: StreamSink,
    private readonly limits: { maxStreams: number; timeoutMs: number },
  ) {}

  /**
   * Takes a place under the per-connection limit before the (possibly slow) method runs; the
   * place is then opened with the method's result, or released if the method failed.
   */
  reserve(spec: StreamSpec, chunkSize = DEFAULT_CHUNK): StreamPlace {
    const current = this.running.size + this.reserved;
    if (current >= this.limits.maxStreams) {
      throw new BAPError(ErrorCodes.ResourceLimitExceeded, `Limit reached: at most ${this.limits.maxStreams} stream${this.limits.maxStreams === 1 ? '' : 's'} at once (${current} running).`, {
        retryable: true,
        retryAfterMs: 1_000,
        details: { resource: 'streams', limit: this.limits.maxStreams, current },
        recoveryHint: 'Wait for a stream/end, or stop a stream with stream/cancel.',
      });
    }
    this.reserved++;
    let held = true;
    const release = () => {
      if (held) this.reserved--;
      held = false;
    };
    return {
      release,
      open: (result) => {
        release();
        return this.open(spec, result, chunkSize);
      },
    };
  }

  /** Registers the stream and returns its announcement plus the function that starts sending. */
  private open(spec: StreamSpec, result: Record<string, unknown>, chunkSize: number): StreamOpened {
    const field = String(result[spec.field] ?? '');
    const payload = Buffer.from(field, spec.encoding);
    const streamId = `stream-${randomUUID()}`;
    const state: Running = { cancelled: false };
    this.running.set(streamId, state);
    const start = { streamId, totalSize: payload.length, contentType: spec.contentType(result), chunkSize };
    return { start, send: () => void this.pump(streamId, state, payload, chunkSize) };
  }

  cancel(streamId: string): { cancelled: boolean } {
    const state = this.running.get(streamId);
    if (!state) {
      throw new BAPError(ErrorCodes.StreamNotFound, `Stream ${streamId} is not running: it ended, was cancelled, or never existed.`, {
        retryable: false,
        details: { streamId },
      });
    }
    state.cancelled = true;
    this.running.delete(streamId);
    return { cancelled: true };
  }

  closeAll(): void {
    for (const state of this.running.values()) state.cancelled = true;
    this.running.clear();
  }

  private async pump(streamId: string, state: Running, payload: Buffer, chunkSize: number): Promise<void> {
    const deadline = Date.now() + this.limits.timeoutMs;
    let index = 0;
    for (let offset = 0; offset < payload.length; offset += chunkSize) {
      while (this.sink.buffered() > HIGH_WATER && !state.cancelled && Date.now() < deadline) await sleep(DRAIN_POLL_MS);
      if (state.cancelled) return;
      if (Date.now() >= deadline) {
        this.running.delete(streamId);
        const error = new BAPError(ErrorCodes.Timeout, `Stream ${streamId} was not delivered within ${this.limits.timeoutMs} ms.`, {
          details: { streamId, sent: offset, totalSize: payload.length },
        });
        return this.notify('stream/error', { streamId, error: error.toWire() });
      }
      const chunk = payload.subarray(offset, offset + chunkSize);
      this.notify('stream/chunk', { streamId, index: index++, data: chunk.toString('base64'), offset, size: chunk.length });
      // Let replies and other connections' traffic through between chunks.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (state.cancelled) return;
    this.running.delete(streamId);
    const checksum = createHash('sha256').update(payload).digest('hex');
    this.notify('stream/end', { streamId, totalChunks: index, totalSize: payload.length, checksum });
  }

  private notify<N extends NotificationName>(method: N, params: NotificationParams<N>): void {
    this.sink.send(JSON.stringify({ jsonrpc: JSONRPC_VERSION, method, params }));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
