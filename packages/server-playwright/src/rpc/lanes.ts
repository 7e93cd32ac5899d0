import type { Lane } from '@browseragentprotocol/protocol';

/**
 * Orders the requests of one connection. Page requests run in arrival order per page and in
 * parallel across pages; a session request waits for everything that arrived before it, and
 * everything after waits for it. The page key is read only once the preceding session request
 * is done, so a call without pageId lands on the page that is active by then. An `immediate`
 * request runs at once: it answers something (a dialog, a paused request) that the requests
 * queued before it are waiting on.
 */
export class RequestLanes {
  private barrier: Promise<unknown> = Promise.resolve();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(lane: Lane, pageKey: () => string, task: () => Promise<T>): Promise<T> {
    if (lane === 'immediate') return task();
    let result: Promise<T>;
    if (lane === 'session') {
      const before = [this.barrier, ...this.inflight];
      result = Promise.allSettled(before).then(task);
      this.barrier = settle(result);
    } else {
      result = this.barrier.then(() => {
        const key = pageKey();
        const previous = this.tails.get(key) ?? Promise.resolve();
        const mine = previous.then(task);
        const tail = settle(mine);
        this.tails.set(key, tail);
        void tail.then(() => {
          if (this.tails.get(key) === tail) this.tails.delete(key);
        });
        return mine;
      });
    }
    const tracked = settle(result);
    this.inflight.add(tracked);
    void tracked.then(() => this.inflight.delete(tracked));
    return result;
  }
}

function settle(promise: Promise<unknown>): Promise<void> {
  return promise.then(
    () => undefined,
    () => undefined,
  );
}
