import { ErrorCodes, PROTOCOL_VERSION, isMethodName, type RequestId } from '@browseragentprotocol/protocol';
import { classify, type Expected } from './expectedReply.js';
import { VALID_PARAMS, unknownMemberGroups, wrongValueGroups, type Params } from './paramMutations.js';

/** A seeded generator of malformed and hostile JSON-RPC frames, each with the reply it must get. */

export type { Expected } from './expectedReply.js';

export type Lane = 'uninitialized' | 'binary' | 'main';

export interface HostileMessage {
  label: string;
  frame: string | Buffer;
  binary: boolean;
  lane: Lane;
  expected: Expected;
  /** Over the server's maxMessageBytes. */
  oversize: boolean;
}

export interface GeneratorOptions {
  seed: number;
  /** The server's maxMessageBytes; frames stay clearly below it unless they are meant to exceed it. */
  maxMessageBytes: number;
}

/** How many messages of each kind; 1,000 in all. */
const COUNTS = {
  badJson: 140,
  numbers: 40,
  invalidRequest: 130,
  unknownMethod: 80,
  wrongType: 380,
  unknownField: 60,
  deepNesting: 20,
  prototypeKeys: 40,
  hugeInLimit: 30,
  oversize: 20,
  notifications: 20,
  batches: 10,
  binary: 15,
  uninitialized: 15,
} as const;

export const TOTAL_MESSAGES = Object.values(COUNTS).reduce((a, b) => a + b, 0);

const NEVER_JSON = ['', ' ', '\n\t', 'undefined', 'NaN', 'foo', "{'a':1}", '{"a":1', '[1,2', 'tru', '"unterminated', '{"a" 1}', '{,}', '[,]', '0x1F', '01', '.5', '+1', '-', '}{', '\u0000'];
const NESTING_DEPTH = 10_000;

export function generateHostileMessages(options: GeneratorOptions): HostileMessage[] {
  const factory = new HostileMessageFactory(options);
  factory.badJson(COUNTS.badJson);
  factory.numbers(COUNTS.numbers);
  factory.invalidRequests(COUNTS.invalidRequest);
  factory.unknownMethods(COUNTS.unknownMethod);
  factory.mutatedParams(wrongValueGroups(), COUNTS.wrongType, 'wrong value');
  factory.mutatedParams(unknownMemberGroups(), COUNTS.unknownField, 'unknown member');
  factory.deepNesting(COUNTS.deepNesting);
  factory.prototypeKeys(COUNTS.prototypeKeys);
  factory.longStrings(COUNTS.hugeInLimit);
  factory.oversize(COUNTS.oversize);
  factory.notifications(COUNTS.notifications);
  factory.batches(COUNTS.batches);
  factory.binaryFrames(COUNTS.binary);
  factory.beforeInitialize(COUNTS.uninitialized);
  return factory.done(TOTAL_MESSAGES);
}

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class HostileMessageFactory {
  private readonly messages: HostileMessage[] = [];
  private readonly random: () => number;
  private nextId = 1;

  constructor(private readonly options: GeneratorOptions) {
    this.random = seededRandom(options.seed);
  }

  /** Valid requests cut short or corrupted, and text that was never JSON. */
  badJson(count: number): void {
    const corruptions: Array<(text: string) => string> = [
      (t) => t.slice(0, 1 + this.int(t.length - 2)),
      (t) => t.replace(/"/g, "'"),
      (t) => t.replace(/}$/, ',}'),
      (t) => t.replace('"jsonrpc"', 'jsonrpc'),
      (t) => `${t}}`,
      (t) => `${t} ${t}`,
      (t) => t.replace(':', '::'),
      (t) => t.replace('"2.0"', '"2.0\n"'),
      (t) => t.replace('"method"', '"me\\xthod"'),
      (t) => `/* comment */ ${t}`,
      (t) => t.replace(/,/, ',,'),
      (t) => t.replace('{', '{{'),
    ];
    const corrupt = () => {
      const [method, params] = this.pick(VALID_PARAMS);
      return this.pick(corruptions)(this.request(method, params));
    };
    for (let i = 0; i < count; i++) {
      let frame = i < NEVER_JSON.length ? NEVER_JSON[i]! : corrupt();
      while (isJson(frame)) frame = corrupt();
      this.push(`bad JSON #${i}`, frame, ErrorCodes.ParseError);
    }
  }

  /** Numbers JSON does not have (NaN, Infinity, hex, …), and JSON numbers no field accepts. */
  numbers(count: number): void {
    const notJson = ['NaN', 'Infinity', '-Infinity', '+1', '0x10', '.5', '1.', '01', '-', '1e', '--1', '1_000'];
    const outOfRange = ['1e400', '-1e400', '-1', '1e308', '4.5', '-0.5', '9007199254740993', '1e21'];
    const slots: Array<(n: string) => string> = [
      (n) => `{"jsonrpc":"2.0","id":${this.nextId++},"method":"action/click","params":{"selector":{"type":"coordinates","x":${n},"y":1}}}`,
      (n) => `{"jsonrpc":"2.0","id":${this.nextId++},"method":"page/navigate","params":{"url":"http://127.0.0.1:9/","timeout":${n}}}`,
      (n) => `{"jsonrpc":"2.0","id":${this.nextId++},"method":"observe/screenshot","params":{"options":{"format":"jpeg","quality":${n}}}}`,
      (n) => `{"jsonrpc":"2.0","id":${this.nextId++},"method":"action/click","params":{"selector":{"type":"css","value":"a"},"options":{"clickCount":${n}}}}`,
    ];
    for (let i = 0; i < count; i++) {
      let literal: string;
      let frame: string;
      do {
        literal = i % 2 === 0 ? this.pick(notJson) : this.pick(outOfRange);
        frame = this.pick(slots)(literal);
      } while (classify(frame, true).kind === 'result');
      this.push(`number ${literal} #${i}`, frame, isJson(frame) ? ErrorCodes.InvalidParams : ErrorCodes.ParseError);
    }
  }

  /** Valid JSON that is neither a request nor a notification. */
  invalidRequests(count: number): void {
    const makers: Array<() => string> = [
      () => this.pick(['1', '"a string"', 'null', 'true', 'false', '0', '-1.5', '"{}"']),
      () => JSON.stringify({ id: this.nextId++, method: 'page/list' }),
      () => JSON.stringify({ jsonrpc: this.pick(['1.0', '2', 2, 2.0, null, '2.0 ', ['2.0'], {}]), id: this.nextId++, method: 'page/list' }),
      () => JSON.stringify({ jsonrpc: '2.0', id: this.nextId++ }),
      () => JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method: this.pick([1, null, [], {}, true, '']) }),
      () => JSON.stringify({ jsonrpc: '2.0', id: this.pick([true, false, {}, [], 1.5, [1], { id: 1 }, -0.25]), method: 'page/list' }),
      () => `{"jsonrpc":"2.0","id":${this.pick(['1e400', '-1e400', '1.5e-3'])},"method":"page/list"}`,
      () => JSON.stringify({ jsonrpc: '2.0', method: this.pick([1, null, {}, '']) }),
      () => JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method: 'page/list', params: this.pick(['bar', 1, true, null]) }),
      () => JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method: 'page/list', [this.pick(['foo', 'result', 'error', 'Method', 'ID'])]: 1 }),
      () => JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, result: {} }),
      () => JSON.stringify({ foo: 'boo' }),
      () => JSON.stringify({}),
    ];
    for (let i = 0; i < count; i++) this.push(`invalid request #${i}`, this.pick(makers)(), ErrorCodes.InvalidRequest);
  }

  /** Names not in the table, including those every JS object answers to. */
  unknownMethods(count: number): void {
    const fixed = [
      ...['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__', 'isPrototypeOf'],
      ...['Page/list', 'page/List', 'page/list/', '/page/list', ' page/list', 'page/list ', 'page.list', 'page\\list', 'page/list\u0000'],
      ...['rpc.discover', 'action', 'action/', 'observe/*', 'storage/getstate', 'frame/', 'context/drop', 'Network/intercept'],
    ];
    for (let i = 0; i < count; i++) {
      const method = fixed[i] ?? (i % 7 === 0 ? `x/${'y'.repeat(5_000 + this.int(20_000))}` : this.randomName());
      this.push(`unknown method #${i}`, this.request(method, {}), ErrorCodes.MethodNotFound);
    }
  }

  /** A sample of mutated params that the method's schema rejects, spread over the groups (fields). */
  mutatedParams(groups: Array<Array<[string, Params]>>, count: number, what: string): void {
    const rejected = groups
      .map((group) => group.map(([method, params]) => this.request(method, params, 0)).filter((frame) => isInvalidParams(frame)))
      .filter((group) => group.length > 0);
    for (const frame of sampleAcrossGroups(rejected, count, this.random)) {
      this.push(`${what} ${frame.slice(0, 160)}`, frame.replace('"id":0', `"id":${this.nextId++}`), ErrorCodes.InvalidParams);
    }
  }

  /**
   * 10,000 levels of nesting where a value, the id, the whole message or a batch entry goes. Objects
   * nest through the empty key (`{"":{"":…}}`) to stay under maxMessageBytes.
   */
  deepNesting(count: number): void {
    const array = '['.repeat(NESTING_DEPTH) + ']'.repeat(NESTING_DEPTH);
    const object = '{"":'.repeat(NESTING_DEPTH) + '1' + '}'.repeat(NESTING_DEPTH);
    const frames: Array<[(id: number) => string, number | Expected['kind']]> = [
      [(id) => `{"jsonrpc":"2.0","id":${id},"method":"page/list","params":{"deep":${array}}}`, ErrorCodes.InvalidParams],
      [(id) => `{"jsonrpc":"2.0","id":${id},"method":"page/list","params":{"deep":${object}}}`, ErrorCodes.InvalidParams],
      [(id) => `{"jsonrpc":"2.0","id":${id},"method":"action/click","params":{"selector":{"type":"css","value":${array}}}}`, ErrorCodes.InvalidParams],
      [(id) => `{"jsonrpc":"2.0","id":${id},"method":"page/navigate","params":{"url":${object}}}`, ErrorCodes.InvalidParams],
      [() => `{"jsonrpc":"2.0","id":${array},"method":"page/list"}`, ErrorCodes.InvalidRequest],
      [(id) => `{"jsonrpc":"2.0","id":${id},"method":${object}}`, ErrorCodes.InvalidRequest],
      [() => object, ErrorCodes.InvalidRequest],
      [() => array, 'batch'],
      [() => '['.repeat(NESTING_DEPTH), ErrorCodes.ParseError],
      [() => '{"":'.repeat(NESTING_DEPTH), ErrorCodes.ParseError],
    ];
    for (let i = 0; i < count; i++) {
      const [frame, intended] = frames[i % frames.length]!;
      this.push(`deep nesting #${i}`, frame(this.nextId++), intended);
    }
  }

  /** Keys and names that reach Object.prototype when code uses plain objects as maps. */
  prototypeKeys(count: number): void {
    const frames: Array<(id: number) => string> = [
      (id) => `{"jsonrpc":"2.0","id":${id},"method":"page/list","params":{"__proto__":{"polluted":"yes"}}}`,
      (id) => `{"jsonrpc":"2.0","id":${id},"method":"page/list","params":{"constructor":{"prototype":{"polluted":"yes"}}}}`,
      (id) => `{"jsonrpc":"2.0","id":${id},"method":"action/click","params":{"selector":{"type":"css","value":"a","__proto__":{"polluted":"yes"}}}}`,
      (id) => `{"__proto__":{"polluted":"yes"},"jsonrpc":"2.0","id":${id},"method":"page/list"}`,
      (id) => `{"jsonrpc":"2.0","id":${id},"method":"events/subscribe","params":{"events":["__proto__"]}}`,
      (id) => `{"jsonrpc":"2.0","id":${id},"method":"action/click","params":{"selector":{"type":"__proto__","value":"a"}}}`,
      (id) => `{"jsonrpc":"2.0","id":${id},"method":"observe/element","params":{"selector":{"type":"css","value":"a"},"properties":["constructor"]}}`,
      () => `{"jsonrpc":"2.0","id":"__proto__","method":"nope"}`,
      () => `{"jsonrpc":"2.0","id":"constructor","method":"page/list","params":{}}`,
      () => `{"jsonrpc":"2.0","id":"hasOwnProperty","method":"page/list","params":{"toString":1}}`,
      (id) => `{"jsonrpc":"2.0","id":${id},"method":"__proto__","params":{"polluted":"yes"}}`,
      (id) => `{"jsonrpc":"2.0","id":${id},"method":"constructor","params":{}}`,
    ];
    for (let i = 0; i < count; i++) this.push(`prototype key #${i}`, frames[i % frames.length]!(this.nextId++));
  }

  /** Strings that fit in a message but not in their field. */
  longStrings(count: number): void {
    const big = (n: number) => 'A'.repeat(n);
    const makers: Array<() => string> = [
      () => this.request('page/navigate', { url: `http://127.0.0.1:9/${big(50_000)}` }),
      () => this.request('action/press', { key: big(40_000) }),
      () => this.request('action/click', { selector: { type: 'css', value: big(45_000) } }),
      () => this.request('action/click', { selector: { type: 'role', role: 'button', name: big(20_000) } }),
      () => this.request('page/close', { pageId: big(30_000) }),
      () => this.request('browser/launch', { channel: big(50_000) }),
      () => this.request('observe/element', { selector: { type: 'ref', ref: `@${big(40_000)}` } }),
      () => this.request('action/select', { selector: { type: 'css', value: 'select' }, values: [big(20_000)] }),
    ];
    for (let i = 0; i < count; i++) this.push(`long string #${i}`, makers[i % makers.length]!(), ErrorCodes.InvalidParams);
  }

  /**
   * Over maxMessageBytes: -32600 however valid the content. The server may refuse to read 2 MB at
   * all (close 1009) but must answer a frame just over the limit.
   */
  oversize(count: number): void {
    for (let i = 0; i < count; i++) {
      const tooBig = i % 2 === 0;
      const size = tooBig ? 2 * 1024 * 1024 : this.options.maxMessageBytes + 1 + this.int(this.options.maxMessageBytes);
      const padding = 'v'.repeat(size - 120);
      const frame =
        i % 4 === 3
          ? `{"jsonrpc":"2.0","id":${this.nextId++},"method":"page/list","params":{},"pad":"${padding}"}`
          : this.request('action/fill', { selector: { type: 'css', value: '#q' }, value: padding });
      this.messages.push({
        label: `oversize ${Buffer.byteLength(frame)} bytes #${i}`,
        frame,
        binary: false,
        lane: 'main',
        expected: tooBig ? { kind: 'tooBig' } : { kind: 'error', codes: [ErrorCodes.InvalidRequest], ids: [null] },
        oversize: true,
      });
    }
  }

  /** Wrong, but notifications: never answered. */
  notifications(count: number): void {
    const makers: Array<() => string> = [
      () => JSON.stringify({ jsonrpc: '2.0', method: this.randomName() }),
      () => JSON.stringify({ jsonrpc: '2.0', method: 'page/navigate', params: { url: this.pick([5, null, '', true]) } }),
      () => JSON.stringify({ jsonrpc: '2.0', method: 'action/click', params: { selector: { type: 'css' } } }),
      () => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized', params: { extra: 1 } }),
      () => JSON.stringify({ jsonrpc: '2.0', method: 'constructor' }),
    ];
    for (let i = 0; i < count; i++) this.push(`notification #${i}`, makers[i % makers.length]!(), 'none');
  }

  /** Small batches of invalid entries: one array reply, one error per entry that is not a notification. */
  batches(count: number): void {
    const entries: Array<() => unknown> = [
      () => 1,
      () => ({ foo: 'boo' }),
      () => ({ jsonrpc: '2.0', id: this.nextId++, method: this.randomName() }),
      () => ({ jsonrpc: '2.0', id: this.nextId++, method: 'page/navigate', params: { url: 7 } }),
      () => ({ jsonrpc: '2.0', method: 'nope' }),
      () => [],
    ];
    for (let i = 0; i < count; i++) {
      const batch = Array.from({ length: 1 + this.int(5) }, (_, k) => entries[(i + k) % entries.length]!());
      this.push(`batch #${i}`, JSON.stringify(batch));
    }
  }

  /** The wire is text frames only. */
  binaryFrames(count: number): void {
    for (let i = 0; i < count; i++) {
      const bytes = Buffer.alloc(i === 0 ? 0 : 1 + this.int(4_096));
      for (let b = 0; b < bytes.length; b++) bytes[b] = this.int(256);
      if (bytes.length > 0) bytes[0] = 0xff;
      this.messages.push({ label: `binary frame ${bytes.length} bytes #${i}`, frame: bytes, binary: true, lane: 'binary', expected: { kind: 'binary' }, oversize: false });
    }
  }

  /** A connection that never initializes: every method but initialize is refused; initialize checks its params. */
  beforeInitialize(count: number): void {
    const info = { name: 'x', version: '1' };
    const badInitialize = [
      { protocolVersion: 1, clientInfo: info },
      { protocolVersion: 'zero', clientInfo: info },
      { protocolVersion: PROTOCOL_VERSION },
      { protocolVersion: PROTOCOL_VERSION, clientInfo: { name: '', version: '1' } },
      { protocolVersion: PROTOCOL_VERSION, clientInfo: info, sessionId: '' },
      { protocolVersion: PROTOCOL_VERSION, clientInfo: info, capabilities: 'all' },
      { protocolVersion: PROTOCOL_VERSION, clientInfo: info, extra: true },
    ];
    const harmless = VALID_PARAMS.filter(([method]) => method !== 'shutdown' && method !== 'events/subscribe');
    for (let i = 0; i < count; i++) {
      if (i < badInitialize.length) {
        this.push(`initialize with bad params #${i}`, this.request('initialize', badInitialize[i]), ErrorCodes.InvalidParams, 'uninitialized');
      } else if (i % 2 === 0) {
        const [method, params] = this.pick(harmless);
        this.push(`${method} before initialize #${i}`, this.request(method, params), ErrorCodes.NotInitialized, 'uninitialized');
      } else {
        this.push(`bad JSON before initialize #${i}`, this.pick(NEVER_JSON.filter(Boolean)), ErrorCodes.ParseError, 'uninitialized');
      }
    }
  }

  done(total: number): HostileMessage[] {
    if (this.messages.length !== total) throw new Error(`generator bug: ${this.messages.length} messages, not ${total}`);
    return shuffle(this.messages, this.random);
  }

  /** Adds a text frame with the reply `classify` expects; `intended` guards the generator against its own bugs. */
  private push(label: string, frame: string, intended?: number | Expected['kind'], lane: Lane = 'main'): void {
    const bytes = Buffer.byteLength(frame);
    if (bytes > this.options.maxMessageBytes - 1024) throw new Error(`generator bug: ${label} is ${bytes} bytes`);
    const expected = classify(frame, lane !== 'uninitialized');
    const got = expected.kind === 'error' ? expected.codes[0] : expected.kind;
    if (intended !== undefined && got !== intended) {
      throw new Error(`generator bug: ${label} classifies as ${String(got)}, meant ${String(intended)}: ${frame.slice(0, 200)}`);
    }
    this.messages.push({ label, frame, binary: false, lane, expected, oversize: false });
  }

  private request(method: string, params?: unknown, id: RequestId = this.nextId++): string {
    return JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  private int(max: number): number {
    return Math.floor(this.random() * max);
  }

  private randomName(): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz/_-.0123456789$@';
    let name = '';
    for (let i = 0, length = 1 + this.int(30); i < length; i++) name += alphabet[this.int(alphabet.length)];
    return isMethodName(name) ? `${name}-nope` : name;
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isInvalidParams(frame: string): boolean {
  const expected = classify(frame, true);
  return expected.kind === 'error' && expected.codes[0] === ErrorCodes.InvalidParams;
}

/** One item from each group in turn (groups shuffled), so every group is hit before any twice. */
function sampleAcrossGroups(groups: string[][], count: number, random: () => number): string[] {
  const queues = shuffle(groups.map((g) => shuffle([...g], random)), random);
  const picked: string[] = [];
  while (picked.length < count && queues.some((q) => q.length > 0)) {
    for (const queue of queues) {
      const item = queue.shift();
      if (item !== undefined && picked.length < count) picked.push(item);
    }
  }
  if (picked.length < count) throw new Error(`generator bug: only ${picked.length} of ${count} available`);
  return picked;
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
