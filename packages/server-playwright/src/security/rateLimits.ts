/**
 * A token bucket: `capacity` calls at once, refilled at `refill` per `intervalMs`. `take` answers
 * 0 when a call may go ahead, or how many ms until one may. Time is read from the monotonic
 * clock: a wall clock set back would otherwise drain the bucket for as long as it went back.
 */
export class TokenBucket {
  private tokens: number;
  private last = performance.now();

  constructor(
    private readonly capacity: number,
    private readonly refill: number,
    private readonly intervalMs: number,
  ) {
    this.tokens = capacity;
  }

  take(): number {
    const now = performance.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) * this.refill) / this.intervalMs);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) * this.intervalMs) / this.refill);
  }
}

/** A client's budgets: requests per second (bursts up to twice) and screenshots per minute. */
export class ClientLimits {
  readonly requests: TokenBucket;
  readonly screenshots: TokenBucket;

  constructor(requestsPerSecond: number, screenshotsPerMinute: number) {
    this.requests = new TokenBucket(requestsPerSecond * 2, requestsPerSecond, 1_000);
    this.screenshots = new TokenBucket(screenshotsPerMinute, screenshotsPerMinute, 60_000);
  }
}

/** Open connections per remote address. */
export class ConnectionCounter {
  private readonly counts = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Counts a connection in, or returns false when the address is at its limit. */
  acquire(address: string): boolean {
    const count = this.counts.get(address) ?? 0;
    if (count >= this.max) return false;
    this.counts.set(address, count + 1);
    return true;
  }

  release(address: string): void {
    const count = (this.counts.get(address) ?? 1) - 1;
    if (count <= 0) this.counts.delete(address);
    else this.counts.set(address, count);
  }
}
