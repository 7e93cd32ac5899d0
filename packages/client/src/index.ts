export { BAPClient, toSelector, type ActionOptions, type SelectorInput } from './client.js';
export {
  BAPClientCore,
  CLIENT_INFO,
  type BAPClientOptions,
  type BatchEntry,
  type BatchResults,
  type ClientEventMap,
} from './clientCore.js';
export type { ReconnectOptions } from './backoff.js';
export { BAPClientError, type BAPClientErrorCode } from './errors.js';
export { BAPStream } from './streams.js';
export type { RpcNamespaces } from './rpcNamespaces.js';
export type { CloseInfo, Transport } from './transport.js';
export {
  BAPError,
  ErrorCodes,
  PROTOCOL_VERSION,
  coords,
  css,
  label,
  parseSelector,
  placeholder,
  ref,
  role,
  semantic,
  testId,
  text,
  xpath,
  type EventType,
  type InitializeResult,
  type MethodName,
  type MethodParams,
  type MethodResult,
  type Selector,
} from '@browseragentprotocol/protocol';
