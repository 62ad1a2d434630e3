// A read of a stream that ends exactly once, whichever way it ends: the stream's events and a
// deadline race, the first handler to settle wins, and then every listener and the timer are
// removed (and the stream paused when the outcome asks for it), so a late event can neither settle
// the read a second time nor keep data buffering for nobody.

type Listener = Parameters<NodeJS.ReadableStream["on"]>[1];

/** The stream events a read listens to; each handler may call the `settle` it was made with. */
export interface ReadEvents {
  readonly data: (chunk: Buffer | string) => void;
  readonly end: () => void;
  readonly error: () => void;
  readonly close?: () => void;
}

/**
 * Listens to `stream` with the handlers `listen(settle)` makes until one of them settles the read,
 * or `deadlineMs` passes (the outcome `onDeadline`); resolves with that outcome. `pauseAfter`
 * says whether the stream is paused once settled (default: always).
 */
export function readUntilSettled<T>(
  stream: NodeJS.ReadableStream,
  deadlineMs: number,
  onDeadline: T,
  listen: (settle: (outcome: T) => void) => ReadEvents,
  pauseAfter: (outcome: T) => boolean = () => true,
): Promise<T> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: T): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const [name, handler] of handlers) stream.removeListener(name, handler);
      if (pauseAfter(outcome) && typeof stream.pause === "function") stream.pause();
      resolve(outcome);
    };
    const handlers = Object.entries(listen(settle)).filter((entry) => entry[1] !== undefined) as Array<[string, Listener]>;
    const timer = setTimeout(() => settle(onDeadline), deadlineMs);
    for (const [name, handler] of handlers) stream.on(name, handler);
  });
}
