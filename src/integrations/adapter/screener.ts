// One screen of one text through the loopback service, as every HTTP adapter does it: POST
// /check (with the bearer token of LITTLE_CANARY_TOKEN_FILE, read at the first screen and kept),
// classify the answer, and until it has been read once read `/health` alongside to find a service
// that cannot gate (health-notice.ts), delaying the verdict by at most HEALTH_GRACE_MS. A token file
// that cannot be used is a configuration problem: every screen reports it, and nothing is sent.
import { classifyForHost, unscreenedForHost, type FailureMode, type HostClassification } from "../classify.js";
import { orAbort } from "../../core/or-abort.js";
import { getHealth, postCheck } from "./client.js";
import { readAdapterToken, type AdapterToken } from "./config.js";
import type { ServiceEndpoint } from "./endpoint.js";
import { healthNotices } from "./health-notice.js";

/** How long a verdict may wait for the `/health` read after `/check` has answered. */
const HEALTH_GRACE_MS = 250;

/** What one screen gives a host: the classified outcome and any health notices to show. */
export interface ScreenResult {
  readonly outcome: HostClassification;
  readonly notices: readonly string[];
}

/** Screens one text; never throws for a service problem (that is an `unscreened` outcome). */
export type Screen = (text: string) => Promise<ScreenResult>;

/** What a screener needs: a validated endpoint, a deadline, a failure mode, the adapter's name and the token file. */
export interface ScreenerOptions {
  readonly endpoint: ServiceEndpoint;
  readonly timeoutMs: number;
  readonly failureMode: FailureMode;
  readonly adapterName?: string;
  /** The file holding the service's bearer token (LITTLE_CANARY_TOKEN_FILE); null or absent: no token. */
  readonly tokenFile?: string | null;
}

/** A screen function bound to one service; it reads `/health` until one read succeeds. */
export function createScreener(options: ScreenerOptions): Screen {
  const { endpoint, timeoutMs, failureMode } = options;
  const adapterName = options.adapterName ?? "this adapter";
  let healthRead = false;
  // Read once, when the first screen starts (a plugin is created before it screens anything).
  let token: Promise<AdapterToken> | null = null;
  return async function screen(text: string): Promise<ScreenResult> {
    const deadline = Date.now() + timeoutMs;
    token ??= readAdapterToken(options.tokenFile ?? null);
    const auth = await token;
    if (!auth.ok) return { outcome: unscreenedForHost(auth.problem, { failureMode }), notices: [] };
    const healthAbort = new AbortController();
    const health = healthRead ? null : getHealth(endpoint, { deadline, signal: healthAbort.signal });
    const check = await postCheck(endpoint, text, { deadline, token: auth.token });
    let notices: string[] = [];
    if (health !== null) {
      const answer = await orAbort(health, AbortSignal.timeout(HEALTH_GRACE_MS)).catch(() => null);
      healthAbort.abort();
      if (answer?.ok) {
        healthRead = true;
        notices = healthNotices(answer.value, timeoutMs, adapterName);
      }
    }
    const outcome = check.ok ? classifyForHost(check.value, { failureMode }) : unscreenedForHost(check.reason, { failureMode });
    return { outcome, notices };
  };
}
