export interface ReconnectOptions {
  /** Attempts after one drop before giving up (default 10; `Infinity` never gives up). */
  maxAttempts?: number;
  /** Delay before the first attempt (default 250 ms); it doubles with each attempt. */
  initialDelayMs?: number;
  /** Ceiling of the delay (default 10,000 ms). */
  maxDelayMs?: number;
}

export type ReconnectPolicy = Required<ReconnectOptions>;

const DEFAULTS: ReconnectPolicy = { maxAttempts: 10, initialDelayMs: 250, maxDelayMs: 10_000 };

/** `undefined` when reconnecting is off. */
export function reconnectPolicy(option: boolean | ReconnectOptions | undefined): ReconnectPolicy | undefined {
  if (!option) return undefined;
  return option === true ? DEFAULTS : { ...DEFAULTS, ...option };
}

/**
 * Exponential backoff with "equal jitter": half the delay is fixed, half random, so clients that
 * lost the same server at the same moment do not all come back in step.
 */
export function backoffDelay(policy: ReconnectPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
