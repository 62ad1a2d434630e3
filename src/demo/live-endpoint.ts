// Argument checks of `demo --live`, run before any network call (the record path's are in
// record.ts). The endpoint must be a literal loopback IP origin over plain http: the live demo
// sends raw prompts, and `localhost` resolves outside our control. Messages are fixed; the value
// (which may carry a token) is never echoed.
import { isIP } from "node:net";
import { LittleCanaryError } from "../core/errors.js";
import { parseUrl } from "../core/guards.js";

/** The setting of `runDemoCommand` a refusal is about, by its option name there. */
type DemoSetting = "backend" | "endpoint" | "model" | "recordPath";

/**
 * An invalid `demo --live` backend, model, endpoint or record path (stable code `demo_argument`);
 * the message never echoes a backend, model or endpoint value. `message` calls the setting by its
 * option name; a caller that knows it by another name (the CLI: the flag the user typed) gets the
 * same refusal under that name from `messageNaming`, so the rule's words live only here.
 */
export class DemoArgumentError extends LittleCanaryError {
  declare readonly code: "demo_argument";
  override readonly name = "DemoArgumentError";
  /** Which setting was refused. */
  readonly setting: DemoSetting;
  readonly #say: (name: string) => string;

  constructor(setting: DemoSetting, say: (name: string) => string) {
    super("demo_argument", say(setting));
    this.setting = setting;
    this.#say = say;
  }

  /** The refusal with its setting called `name` (e.g. `--ollama-url`). */
  messageNaming(name: string): string {
    return this.#say(name);
  }
}

const invalid = (name: string): string => `${name} must be a valid loopback HTTP origin`;
const extras = (name: string): string => `${name} must be a loopback HTTP origin without path, user info, query, or fragment`;
const MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;

/** The normalised origin `http://<ip>[:port]` of a literal loopback endpoint. */
export function validateLiveEndpoint(raw: string): string {
  if (raw.length === 0 || raw.length > 2048) throw new DemoArgumentError("endpoint", invalid);
  const url = parseUrl(raw);
  if (url === null) throw new DemoArgumentError("endpoint", invalid);
  if (url.protocol !== "http:") throw new DemoArgumentError("endpoint", invalid);
  const authority = raw.slice(raw.indexOf("//") + 2).split(/[/?#]/, 1)[0] ?? "";
  if (url.username || url.password || authority.includes("@") || url.search || url.hash || raw.includes("?") || raw.includes("#")) {
    throw new DemoArgumentError("endpoint", extras);
  }
  if (url.pathname !== "/" && url.pathname !== "") throw new DemoArgumentError("endpoint", extras);
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) === 0) throw new DemoArgumentError("endpoint", (name) => `${name} host must be a literal loopback IP address`);
  // A literal IP here: 127.0.0.0/8 or ::1.
  if (host !== "::1" && !(isIP(host) === 4 && host.startsWith("127."))) throw new DemoArgumentError("endpoint", (name) => `${name} host must be loopback`);
  return `http://${url.host}`;
}

export function validateDemoModel(model: string): string {
  if (!MODEL_PATTERN.test(model)) throw new DemoArgumentError("model", (name) => `${name} must be a valid bounded tag`);
  return model;
}

export function validateDemoBackend(backend: string): "ollama" {
  if (backend !== "ollama") throw new DemoArgumentError("backend", () => "only the loopback Ollama backend is supported");
  return "ollama";
}
