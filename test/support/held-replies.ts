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

/** Resolves once `standIn` has received a chat request (polling; the test timeout bounds it). */
export async function firstChat(standIn: Pick<OllamaStandIn, "chatRequests">): Promise<void> {
  while (standIn.chatRequests().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
}
