import { AsyncLocalStorage } from 'node:async_hooks';

/** The deadline of the agent/act sequence a call runs in, if any. */
const deadlines = new AsyncLocalStorage<number>();

export function withDeadline<T>(deadline: number, run: () => Promise<T>): Promise<T> {
  return deadlines.run(deadline, run);
}

/** A default timeout, shortened so it ends no later than the surrounding sequence's deadline. */
export function clampTimeout(ms: number): number {
  const deadline = deadlines.getStore();
  return deadline === undefined ? ms : Math.max(1, Math.min(ms, deadline - Date.now()));
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
