// Argument checks of `demo --live`, run before any network call. The endpoint must be a literal
// loopback IP origin over plain http: the live demo sends raw prompts, and `localhost` resolves
// outside our control. Messages are fixed; the value (which may carry a token) is never echoed.
import { isIP } from "node:net";
import { LittleCanaryError } from "../core/errors.js";
import { parseUrl } from "../core/guards.js";

/** An invalid `demo --live` backend, model or endpoint (stable code `demo_argument`); the message never echoes the value. */
export class DemoArgumentError extends LittleCanaryError {
  declare readonly code: "demo_argument";
  override readonly name = "DemoArgumentError";
  constructor(message: string) {
    super("demo_argument", message);
  }
}

const INVALID = "endpoint must be a valid loopback HTTP origin";
const EXTRAS = "endpoint must be a loopback HTTP origin without path, user info, query, or fragment";
const MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;

/** The normalised origin `http://<ip>[:port]` of a literal loopback endpoint. */
export function validateLiveEndpoint(raw: string): string {
  if (raw.length === 0 || raw.length > 2048) throw new DemoArgumentError(INVALID);
  const url = parseUrl(raw);
  if (url === null) throw new DemoArgumentError(INVALID);
  if (url.protocol !== "http:") throw new DemoArgumentError(INVALID);
  const authority = raw.slice(raw.indexOf("//") + 2).split(/[/?#]/, 1)[0] ?? "";
  if (url.username || url.password || authority.includes("@") || url.search || url.hash || raw.includes("?") || raw.includes("#")) {
    throw new DemoArgumentError(EXTRAS);
  }
  if (url.pathname !== "/" && url.pathname !== "") throw new DemoArgumentError(EXTRAS);
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) === 0) throw new DemoArgumentError("endpoint host must be a literal loopback IP address");
  // A literal IP here: 127.0.0.0/8 or ::1.
  if (host !== "::1" && !(isIP(host) === 4 && host.startsWith("127."))) throw new DemoArgumentError("endpoint host must be loopback");
  return `http://${url.host}`;
}

export function validateDemoModel(model: string): string {
  if (!MODEL_PATTERN.test(model)) throw new DemoArgumentError("model must be a valid bounded tag");
  return model;
}

export function validateDemoBackend(backend: string): "ollama" {
  if (backend !== "ollama") throw new DemoArgumentError("only the loopback Ollama backend is supported");
  return "ollama";
}
