// Timeout honesty. A fresh install fails open twice over: `serve` defaults to advisory mode (never
// `safe:false`), and its canary timeout (600 s by default) dwarfs an adapter's few seconds, so
// slow screens end as "unavailable". Adapters read `/health` (only `mode` and `canary_timeout`)
// once and say so, in sentences that hold nothing from the prompt.
import { isPlainObject } from "../../core/guards.js";

/**
 * The notices for a service that cannot gate: advisory mode, or a canary timeout longer than
 * this adapter's deadline. `adapterName` names the adapter in the sentence (e.g. "this hook").
 */
export function healthNotices(health: unknown, adapterTimeoutMs: number, adapterName = "this adapter"): string[] {
  if (!isPlainObject(health)) return [];
  const notices: string[] = [];
  if (health["mode"] === "advisory") {
    notices.push(
      "Little Canary service runs in advisory mode, which never rejects a prompt; " + "start it with --mode block to give this adapter refusal power.",
    );
  }
  const canaryTimeout = health["canary_timeout"];
  if (typeof canaryTimeout === "number" && Number.isFinite(canaryTimeout) && canaryTimeout * 1000 > adapterTimeoutMs) {
    notices.push(
      `Little Canary service's canary timeout (${canaryTimeout}s) exceeds ${adapterName}'s ${adapterTimeoutMs} ms deadline; ` +
        "slow screens will end as unavailable.",
    );
  }
  return notices;
}
