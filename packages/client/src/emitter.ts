/** Listener errors must not break the socket loop that emits, nor the listeners after them. */
function report(error: unknown): void {
  // Rethrown on a fresh stack, as DOM EventTarget does, so the bug still surfaces as an uncaught error.
  queueMicrotask(() => {
    throw error;
  });
}

/**
 * A minimal typed event emitter. Node's `events` is not used so that the client runs unchanged in
 * browsers; unlike Node's emitter, an `error` with no listener is dropped rather than thrown.
 */
export class Emitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  /** Returns a function that removes the listener. */
  on<E extends keyof Events>(event: E, listener: (payload: Events[E]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => this.off(event, listener);
  }

  off<E extends keyof Events>(event: E, listener: (payload: Events[E]) => void): void {
    this.listeners.get(event)?.delete(listener);
  }

  emit<E extends keyof Events>(event: E, payload: Events[E]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    // A copy, so listeners that remove themselves do not skip their neighbours.
    for (const listener of [...set] as ((payload: Events[E]) => void)[]) {
      try {
        listener(payload);
      } catch (error) {
        report(error);
      }
    }
  }
}
