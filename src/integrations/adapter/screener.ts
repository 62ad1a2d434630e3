// One screen of one text through the loopback service, as every HTTP adapter does it: POST
// /check (with the bearer token of LITTLE_CANARY_TOKEN_FILE, read at the first screen and kept;
// a token file that cannot be used is a configuration problem: reported, nothing sent), then
// classify the answer. Until it has been read once, `/health` is read alongside (delaying the
// verdict by at most HEALTH_GRACE_MS) for timeout honesty: a fresh install fails open twice over,
// as `serve` defaults to advisory mode (never `safe:false`) and its canary timeout (600 s) dwarfs an
// adapter's few seconds; the notices say so, holding nothing from the prompt. The in-process
// plugins check their configuration once, when created; a problem never throws inside the host:
// each screen reports it as `unscreened` (refused under `deny`) without any request.
import { isPlainObject } from "../../core/guards.js";
import { classifyForHost, unscreenedForHost, type FailureMode, type HostClassification } from "../classify.js";
import { orAbort } from "../../core/or-abort.js";
import { getHealth, postCheck, UNAUTHORIZED } from "./client.js";
import { adapterConfig, ENDPOINT_ENV, failureModeOf, HOOK_TIMEOUT_LIMITS, parseCheckEndpoint, readAdapterToken, TIMEOUT_ENV } from "./config.js";
import type { AdapterConfig, AdapterEnv, AdapterToken, ServiceEndpoint } from "./config.js";

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

/** How to start the service within `adapterTimeoutMs`: whole seconds below it, when there is one. */
function timeoutAdvice(adapterTimeoutMs: number): string {
  const seconds = Math.floor((adapterTimeoutMs - 1) / 1000);
  return seconds >= 1 ? ` Start it with --timeout ${seconds} (or less).` : "";
}

/**
 * The notices for a service that cannot gate: advisory mode, or a canary timeout longer than
 * this adapter's deadline. `adapterName` names the adapter in the sentence (e.g. "this hook").
 */
function healthNotices(health: unknown, adapterTimeoutMs: number, adapterName: string): string[] {
  if (!isPlainObject(health)) return [];
  const canaryTimeout = health["canary_timeout"];
  const slow = typeof canaryTimeout === "number" && Number.isFinite(canaryTimeout) && canaryTimeout * 1000 > adapterTimeoutMs;
  return [
    ...(health["mode"] === "advisory"
      ? ["Little Canary service runs in advisory mode, which never rejects a prompt; start it with --mode block to give this adapter refusal power."]
      : []),
    ...(slow
      ? [
          `Little Canary service's canary timeout (${canaryTimeout}s) exceeds ${adapterName}'s ${adapterTimeoutMs} ms deadline; slow screens will end as unavailable.${timeoutAdvice(adapterTimeoutMs)}`,
        ]
      : []),
  ];
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
    const check = await postCheck(endpoint, text, auth.token, { deadline });
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

/** The screen every hook call of a plugin uses, for its configuration (checked once, by adapterConfig). */
export function screenerFor(config: AdapterConfig, adapterName: string): Screen {
  if (config.ok) return createScreener({ ...config, adapterName });
  const unscreened = unscreenedFor(config);
  return async () => unscreened("");
}

/**
 * What a hook gives an input it could not send (`reason`, fixed words such as "prompt was not a
 * string"): unscreened, refused under `deny`. A configuration problem is named instead of the
 * reason, and an invalid failure mode, a setting the user meant to make, counts as `deny`.
 */
export function unscreenedFor(config: AdapterConfig): (reason: string) => ScreenResult {
  const failureMode = failureModeOf(config);
  const problem = config.ok ? null : config.problem;
  return (reason) => ({ outcome: unscreenedForHost(problem ?? reason, { failureMode }), notices: [] });
}

/** What a plugin configured as the command hooks are reads: the environment, a stderr for its warnings and a deadline. */
export interface HookPluginOptions {
  readonly env?: AdapterEnv;
  readonly stderr?: {
    /** Writes one warning line. */
    write(s: string): unknown;
  };
  readonly timeoutMs?: number;
}

/** Such a plugin's screen (LITTLE_CANARY_ENDPOINT, and `timeoutMs` or else LITTLE_CANARY_TIMEOUT_MS) and its stderr. */
export function createHookPluginScreener(
  options: HookPluginOptions,
  adapterName: string,
): { screen: Screen; unscreened: (reason: string) => ScreenResult; stderr: NonNullable<HookPluginOptions["stderr"]> } {
  const env = options.env ?? process.env;
  const config = adapterConfig(env, parseCheckEndpoint(env[ENDPOINT_ENV]), options.timeoutMs ?? env[TIMEOUT_ENV], HOOK_TIMEOUT_LIMITS);
  return { screen: screenerFor(config, adapterName), unscreened: unscreenedFor(config), stderr: options.stderr ?? process.stderr };
}

/**
 * Whether an unscreened reason is a configuration problem, which hosts name: a setting worded by
 * invalidConfiguration, or a 401 (the service's token and LITTLE_CANARY_TOKEN_FILE do not match).
 */
export function isConfigProblem(reason: unknown): reason is string {
  return (
    typeof reason === "string" && (reason.startsWith("invalid adapter configuration") || reason === UNAUTHORIZED.missing || reason === UNAUTHORIZED.refused)
  );
}
