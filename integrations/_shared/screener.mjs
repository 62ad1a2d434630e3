// One screen of one text through the loopback service, as every HTTP adapter does it: POST
// /check, classify the answer with the shared classifier, and (until it has been read once) read
// `/health` alongside to find a service that cannot gate (health-notice.mjs).
//
// The health read never delays the verdict by more than HEALTH_GRACE_MS after /check answers,
// and it shares the screen's deadline; a failed health read is simply tried again next time.
import { classifyForHost, unscreenedForHost } from "./classify.mjs";
import { getHealth, postCheck } from "./client.mjs";
import { healthNotices } from "./health-notice.mjs";

export const HEALTH_GRACE_MS = 250;

function settleWithin(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * @param {{ endpoint: import("./endpoint.mjs").ServiceEndpoint, timeoutMs: number, failureMode: "allow" | "deny", adapterName?: string }} options
 * @returns {(text: string) => Promise<{ outcome: ReturnType<typeof classifyForHost>, notices: string[] }>}
 */
export function createScreener(options) {
  const { endpoint, timeoutMs, failureMode } = options;
  const adapterName = options.adapterName ?? "this adapter";
  let healthRead = false;
  return async function screen(text) {
    const deadline = Date.now() + timeoutMs;
    const healthAbort = new AbortController();
    const health = healthRead ? null : getHealth(endpoint, { deadline, signal: healthAbort.signal });
    const check = await postCheck(endpoint, text, { deadline });
    let notices = [];
    if (health !== null) {
      const answer = await settleWithin(health, HEALTH_GRACE_MS);
      healthAbort.abort();
      if (answer !== null && answer.ok) {
        healthRead = true;
        notices = healthNotices(answer.value, timeoutMs, adapterName);
      }
    }
    const outcome = check.ok ? classifyForHost(check.value, { failureMode }) : unscreenedForHost(check.reason, { failureMode });
    return { outcome, notices };
  };
}
