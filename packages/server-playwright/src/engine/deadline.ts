import { AsyncLocalStorage } from 'node:async_hooks';
import type { BAPError } from '@browseragentprotocol/protocol';

/**
 * The time a composite call (agent/act, agent/extract) may take, shared by everything it does;
 * a timeout of 0 is no limit. `expired` builds the error that says what ran out of time.
 */
export class Deadline {
  readonly end: number;

  constructor(
    timeout: number,
    private readonly expired: () => BAPError,
  ) {
    this.end = timeout === 0 ? Infinity : Date.now() + timeout;
  }

  /** Milliseconds left, as a Playwright timeout (0 when there is no limit). */
  remaining(): number {
    return this.end === Infinity ? 0 : Math.max(1, this.end - Date.now());
  }

  get passed(): boolean {
    return Date.now() >= this.end;
  }

  check(): void {
    if (this.passed) throw this.expired();
  }

  /** `work`, or the deadline's error once the time is up (for work that takes no timeout). */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.end === Infinity) return work;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.expired()), this.remaining());
    });
    return Promise.race([work, late]).finally(() => clearTimeout(timer));
  }

  /** Runs `work` with the default timeouts of every page call inside it cut to this deadline. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return current.run(this.end, work);
  }
}

/** The end of the agent/act sequence a call runs in, if any. */
const current = new AsyncLocalStorage<number>();

/** A default timeout, shortened so it ends no later than the surrounding sequence's deadline. */
function clampTimeout(ms: number): number {
  const end = current.getStore();
  return end === undefined || end === Infinity ? ms : Math.max(1, Math.min(ms, end - Date.now()));
}

/** Timeouts that read the configured ones and clamp them to the current deadline on each use. */
export function clampedTimeouts(configured: () => { action: number; navigation: number }) {
  return {
    get action() {
      return clampTimeout(configured().action);
    },
    get navigation() {
      return clampTimeout(configured().navigation);
    },
  };
}
