import { BAPError, ErrorCodes } from '@browseragentprotocol/protocol';

/** The time one agent/extract call may take, shared by every snapshot and hint it needs; 0 is no limit. */
export class Deadline {
  private readonly end: number;

  constructor(private readonly timeout: number) {
    this.end = timeout === 0 ? Infinity : Date.now() + timeout;
  }

  /** Milliseconds left, as a Playwright timeout (0 when there is no limit). */
  remaining(): number {
    return this.end === Infinity ? 0 : Math.max(1, this.end - Date.now());
  }

  check(): void {
    if (Date.now() >= this.end) throw this.error();
  }

  /** `work`, or a Timeout error once the time is up (for page calls that take no timeout). */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.end === Infinity) return work;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.error()), this.remaining());
    });
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  }

  private error(): BAPError {
    return new BAPError(ErrorCodes.Timeout, `agent/extract did not finish within ${this.timeout} ms.`, {
      retryAfterMs: 0,
      details: { timeout: this.timeout },
      recoveryHint: 'Raise timeout, pass a selector to extract from a smaller part of the page, or use fewer x-selector hints.',
    });
  }
}
