import { ErrorCodes, JSONRPCErrorResponseSchema, type RequestId } from '@browseragentprotocol/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.js';
import {
  TOTAL_MESSAGES,
  generateHostileMessages,
  type Expected,
  type HostileMessage,
  type Lane,
} from './support/hostileMessages.js';
import { isObject, type CloseInfo, type RawSocket } from './support/rawSocket.js';

const MAX_MESSAGE_BYTES = 65_536;
const SEED = 0xba9_2026;
/** Every reply must arrive within this; 2 MB frames get the longer bound. */
const REPLY_BOUND_MS = 2_000;
const OVERSIZE_REPLY_BOUND_MS = 5_000;
const MAIN_CONNECTIONS = 4;
/** WebSocket close codes a server may use for a binary frame: unsupported data, invalid payload. */
const BINARY_CLOSE_CODES = [1003, 1007];
const TOO_BIG_CLOSE_CODE = 1009;

interface Outcome {
  failures: string[];
  slowest: { label: string; ms: number };
  answered: number;
}

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness({ connect: false, server: { maxMessageBytes: MAX_MESSAGE_BYTES } });
});

afterAll(async () => {
  await harness?.stop();
});

describe('hostile messages', () => {
  it(`answers ${TOTAL_MESSAGES} malformed and hostile messages with the right error and stays up`, { timeout: 60_000 }, async () => {
    const started = performance.now();
    const messages = generateHostileMessages({ seed: SEED, maxMessageBytes: MAX_MESSAGE_BYTES });
    expect(messages).toHaveLength(1_000);

    const lanes: Array<{ lane: Lane; index: number; messages: HostileMessage[] }> = [
      { lane: 'uninitialized', index: 0, messages: messages.filter((m) => m.lane === 'uninitialized') },
      { lane: 'binary', index: 0, messages: messages.filter((m) => m.lane === 'binary') },
    ];
    const main = messages.filter((m) => m.lane === 'main');
    for (let i = 0; i < MAIN_CONNECTIONS; i++) {
      lanes.push({ lane: 'main', index: i, messages: main.filter((_, k) => k % MAIN_CONNECTIONS === i) });
    }

    const outcomes = await Promise.all(lanes.map((l) => runLane(l.lane, l.index, l.messages)));
    const failures = outcomes.flatMap((o) => o.failures);
    const answered = outcomes.reduce((sum, o) => sum + o.answered, 0);
    const slowest = outcomes.map((o) => o.slowest).sort((a, b) => b.ms - a.ms)[0]!;

    expect(failures.length, `${failures.length} failures:\n${failures.slice(0, 40).join('\n')}`).toBe(0);
    expect(answered).toBeGreaterThan(900);
    expect(slowest.ms, `slowest reply: ${slowest.label}`).toBeLessThan(OVERSIZE_REPLY_BOUND_MS);

    // Nothing reached Object.prototype of this process, which is where the server runs.
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(55_000);
  });

  it('is still healthy afterwards: /health answers and a fresh client can navigate', async () => {
    const health = await fetch(`${harness.server.httpUrl}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });

    const client = await harness.newClient();
    const result = await client.call('page/navigate', { url: harness.url('form.html') });
    expect(result).toMatchObject({ url: harness.url('form.html'), status: 200 });
  });
});

async function open(lane: Lane): Promise<RawSocket> {
  const socket = await harness.rawSocket();
  if (lane !== 'uninitialized') await socket.handshake(`hostile-${lane}`);
  return socket;
}

async function runLane(lane: Lane, index: number, messages: HostileMessage[]): Promise<Outcome> {
  const outcome: Outcome = { failures: [], slowest: { label: '', ms: 0 }, answered: 0 };
  const fail = (message: HostileMessage, problem: string) =>
    outcome.failures.push(`[${lane}#${index}] ${message.label}: ${problem}`);
  let socket = await open(lane);

  for (const message of messages) {
    if (!socket.isOpen) socket = await open(lane);
    const bound = message.oversize ? OVERSIZE_REPLY_BOUND_MS : REPLY_BOUND_MS;
    const sentAt = performance.now();
    try {
      await socket.send(message.frame, { binary: message.binary });
    } catch (error) {
      fail(message, `send failed: ${String(error)}`);
      continue;
    }
    const { expected } = message;
    if (expected.kind === 'none') continue;

    if (expected.kind === 'binary' || expected.kind === 'tooBig') {
      const closeCodes = expected.kind === 'binary' ? BINARY_CLOSE_CODES : [TOO_BIG_CLOSE_CODE];
      const codes = expected.kind === 'binary' ? [ErrorCodes.ParseError, ErrorCodes.InvalidRequest] : [ErrorCodes.InvalidRequest];
      const current = socket;
      const result: { reply: unknown } | { close: CloseInfo } | { error: unknown } = await current.waitFor((m) => isObject(m) && m.id === null, bound, 'reply').then(
        (reply) => ({ reply }),
        async (error: unknown) => (current.isOpen ? { error } : { close: await current.closed }),
      );
      if ('reply' in result) {
        outcome.answered++;
        checkError(result.reply, { kind: 'error', codes, ids: [null] }, (p) => fail(message, p));
      } else if ('close' in result) {
        if (!closeCodes.includes(result.close.code)) fail(message, `connection closed with ${result.close.code}`);
      } else {
        fail(message, String(result.error));
      }
      continue;
    }

    let reply: unknown;
    try {
      reply = await socket.waitFor(replyMatcher(expected), bound, 'reply');
    } catch (error) {
      fail(message, `${String(error)}; frame starts ${previewFrame(message)}`);
      continue;
    }
    outcome.answered++;
    const ms = performance.now() - sentAt;
    if (ms > outcome.slowest.ms) outcome.slowest = { label: message.label, ms };

    if (expected.kind === 'result') {
      if (!isObject(reply) || !('result' in reply)) fail(message, `expected a result, got ${preview(reply)}`);
    } else if (expected.kind === 'batch') {
      checkBatch(reply, expected, (p) => fail(message, p));
    } else {
      checkError(reply, expected, (p) => fail(message, `${p}; frame starts ${previewFrame(message)}`));
    }
  }

  // Whatever was sent, the connection still answers in order, and nothing was left unanswered or extra.
  if (!socket.isOpen) socket = await open(lane);
  const sentinel = await socket.request('page/list', {}).catch((error: unknown) => ({ error: String(error) }));
  const sentinelOk =
    lane === 'uninitialized'
      ? isObject(sentinel) && isObject(sentinel.error) && sentinel.error.code === ErrorCodes.NotInitialized
      : isObject(sentinel) && 'result' in sentinel;
  if (!sentinelOk) outcome.failures.push(`[${lane}#${index}] sentinel page/list: ${preview(sentinel)}`);
  if (socket.inbox.length > 0) {
    outcome.failures.push(`[${lane}#${index}] unexpected extra messages: ${preview(socket.inbox)}`);
  }
  return outcome;
}

function replyMatcher(expected: Exclude<Expected, { kind: 'none' | 'binary' | 'tooBig' }>): (m: unknown) => boolean {
  switch (expected.kind) {
    case 'batch':
      return (m) => Array.isArray(m);
    case 'result':
      return (m) => isObject(m) && m.id === expected.id;
    case 'error':
      return (m) => isObject(m) && (expected.ids as unknown[]).includes(m.id);
  }
}

function checkError(reply: unknown, expected: Extract<Expected, { kind: 'error' }>, fail: (problem: string) => void): void {
  const parsed = JSONRPCErrorResponseSchema.safeParse(reply);
  if (!parsed.success) {
    fail(`not an error reply with data.retryable: ${preview(reply)}`);
    return;
  }
  const { error, id } = parsed.data;
  if (!expected.codes.includes(error.code)) fail(`expected code ${expected.codes.join(' or ')}, got ${preview(reply)}`);
  if (!expected.ids.includes(id as RequestId | null)) fail(`expected id ${expected.ids.join(' or ')}, got ${String(id)}`);
  if (expected.field !== undefined && !error.message.includes(expected.field)) {
    fail(`message does not name "${expected.field}": ${error.message}`);
  }
}

function checkBatch(reply: unknown, expected: Extract<Expected, { kind: 'batch' }>, fail: (problem: string) => void): void {
  if (!Array.isArray(reply) || reply.length !== expected.items.length) {
    fail(`expected an array of ${expected.items.length} errors, got ${preview(reply)}`);
    return;
  }
  const remaining = [...reply];
  for (const item of expected.items) {
    const index = remaining.findIndex((r) => {
      const parsed = JSONRPCErrorResponseSchema.safeParse(r);
      return parsed.success && item.codes.includes(parsed.data.error.code) && item.ids.includes(parsed.data.id as RequestId | null);
    });
    if (index < 0) {
      fail(`no reply with code ${item.codes.join('/')} id ${item.ids.join('/')} in ${preview(reply)}`);
      return;
    }
    remaining.splice(index, 1);
  }
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function previewFrame(message: HostileMessage): string {
  const text = typeof message.frame === 'string' ? message.frame : message.frame.toString('hex');
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
