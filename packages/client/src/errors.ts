/**
 * Why a call failed on this side of the wire. Failures the server reports stay `BAPError`
 * (numeric JSON-RPC code, rebuilt with `BAPError.fromWire`); these have no wire form.
 *
 * | code        | meaning                                                                                  |
 * |-------------|------------------------------------------------------------------------------------------|
 * | `ECONNECT`  | The socket could not be opened or closed during the handshake; or reconnecting gave up.  |
 * | `ETIMEOUT`  | No response within `requestTimeout`. The server may still carry the request out.         |
 * | `ECLOSED`   | Not connected, or the connection closed before the response came (never retried).        |
 * | `EPROTOCOL` | The server sent something that is not BAP JSON-RPC, or a request id was already in use.  |
 * | `EVERSION`  | The server speaks a protocol major version this client does not.                         |
 * | `ESTREAM`   | A stream arrived incomplete: a chunk missing, the size or the SHA-256 checksum wrong.     |
 * | `ETOOLARGE` | The request is larger than the server's `maxMessageBytes`: it was not sent.              |
 */
export type BAPClientErrorCode = 'ECONNECT' | 'ETIMEOUT' | 'ECLOSED' | 'EPROTOCOL' | 'EVERSION' | 'ESTREAM' | 'ETOOLARGE';

export class BAPClientError extends Error {
  override readonly name = 'BAPClientError';
  readonly code: BAPClientErrorCode;

  constructor(code: BAPClientErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  static is(error: unknown, code?: BAPClientErrorCode): error is BAPClientError {
    return error instanceof BAPClientError && (code === undefined || error.code === code);
  }
}
