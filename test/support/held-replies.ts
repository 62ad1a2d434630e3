// Chat replies that wait for the test: a stand-in whose every chat answer is held until the test
// calls release(). A test that needs a check to stay in flight while something else happens (a
// second run refused at the lock, a full queue, a shutdown) then holds it by a handshake, not by a
// latency that a busy machine can outlast.
import type { OllamaStandIn } from "./ollama-stand-in.js";

/** Makes every later chat of `standIn` answer `reply` only once the returned function was called. */
export function holdReplies(standIn: Pick<OllamaStandIn, "setReply">, reply: string): () => void {
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  standIn.setReply(async () => {
    await released;
    return reply;
  });
  return release;
}

/** Resolves once `standIn` has received more than `seen` chat requests (polling; the test timeout bounds it). */
export async function firstChat(standIn: Pick<OllamaStandIn, "chatRequests">, seen = 0): Promise<void> {
  while (standIn.chatRequests().length <= seen) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** When `whileFirstHoldsTheLocks` lets the first run's checks answer. */
export type Release = "after-second" | "once-second-started";

/**
 * Two ingest runs on the same targets, the second meeting the first one's publication locks: starts
 * `first`, then `second` once the first holds its locks (a run takes them before it reads a record,
 * so once its first check reached `standIn`, whose replies are held meanwhile). The first run's
 * checks answer after `second` has settled, or (for a second run that waits for the lock) as soon as
 * it started. Both outcomes are returned, first then second.
 */
export async function whileFirstHoldsTheLocks<A, B>(
  standIn: Pick<OllamaStandIn, "setReply" | "chatRequests">,
  reply: string,
  first: () => Promise<A>,
  second: () => Promise<B>,
  release: Release = "after-second",
): Promise<[PromiseSettledResult<A>, PromiseSettledResult<B>]> {
  const answer = holdReplies(standIn, reply);
  // Chats of earlier runs (a previous pair written by the test) do not count.
  const seen = standIn.chatRequests().length;
  const a = Promise.allSettled([first()]);
  // A first run that ends before any check (refused) must not leave this waiting for a chat.
  await Promise.race([firstChat(standIn, seen), a]);
  const b = Promise.allSettled([second()]);
  if (release === "once-second-started") answer();
  const [bOutcome] = await b;
  answer();
  const [aOutcome] = await a;
  return [aOutcome as PromiseSettledResult<A>, bOutcome as PromiseSettledResult<B>];
}
