// Order, not duration: a test that must show one answer does not wait for another asserts that the
// first arrived while the second was still pending, which holds however slow the machine is.

/** Watches `promise` and tells, at any later moment, whether it has settled (resolved or rejected) yet. */
export function watchSettled(promise: Promise<unknown>): { readonly settled: boolean } {
  const state = { settled: false };
  promise.then(
    () => void (state.settled = true),
    () => void (state.settled = true),
  );
  return state;
}

/** Passes `call` through, recording in `into` whether it has settled: for calls a function under test starts. */
export function recordSettled<T>(into: Array<{ readonly settled: boolean }>, call: Promise<T>): Promise<T> {
  into.push(watchSettled(call));
  return call;
}
