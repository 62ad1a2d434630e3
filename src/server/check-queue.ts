// A bounded gate in front of the pipeline, so a burst cannot exhaust memory or the backend: at most
// `maxConcurrent` checks run and `maxQueue` wait in arrival order; beyond that a request is told at
// once that the server is busy. A waiter whose client left is dropped before it costs a call.

export type Admission<T> =
  | { readonly kind: "done"; readonly value: T }
  | { readonly kind: "failed"; readonly error: unknown }
  | { readonly kind: "full" }
  | { readonly kind: "cancelled" };

export class CheckQueue {
  readonly maxConcurrent: number;
  readonly maxQueue: number;
  #active = 0;
  /** Each waiter's start, in arrival order. */
  readonly #waiting: Array<() => void> = [];

  constructor(maxConcurrent: number, maxQueue: number) {
    if (!Number.isSafeInteger(maxConcurrent) || maxConcurrent < 1) throw new RangeError("maxConcurrent must be an integer ≥ 1");
    if (!Number.isSafeInteger(maxQueue) || maxQueue < 0) throw new RangeError("maxQueue must be an integer ≥ 0");
    this.maxConcurrent = maxConcurrent;
    this.maxQueue = maxQueue;
  }

  /** Checks running and waiting, and the limits (`/health` reports them as `queue`). */
  state() {
    return { active: this.#active, queued: this.#waiting.length, max_concurrent: this.maxConcurrent, max_queue: this.maxQueue };
  }

  /**
   * Runs `task` when a slot is free. `abandoned` resolves if the client goes away; a task that has
   * not started by then is skipped ("cancelled"), one that has started runs to completion.
   */
  async run<T>(task: () => Promise<T>, abandoned?: Promise<void>): Promise<Admission<T>> {
    if (this.#active >= this.maxConcurrent) {
      if (this.#waiting.length >= this.maxQueue) return { kind: "full" };
      const started = await new Promise<boolean>((resolve) => {
        const start = (): void => resolve(true);
        this.#waiting.push(start);
        void abandoned?.then(() => {
          const index = this.#waiting.indexOf(start);
          if (index >= 0) {
            this.#waiting.splice(index, 1);
            resolve(false);
          }
        });
      });
      if (!started) return { kind: "cancelled" };
    } else {
      this.#active++;
    }
    try {
      return { kind: "done", value: await task() };
    } catch (error) {
      return { kind: "failed", error };
    } finally {
      this.#release();
    }
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next waiter, so `active` never dips and lets a newcomer
    // overtake someone who queued earlier.
    if (next) next();
    else this.#active--;
  }
}
