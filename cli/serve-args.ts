// The flags of `little-canary serve` and their parsers: what the program needs to define the
// command and its --help (the `serve` verb turns them into the service's options when it runs).
import { InvalidArgumentError } from "commander";
import { normalizeAllowedOrigin } from "../src/verbs/defaults.js";
import type { ServeOptions } from "../src/verbs/serve.js";

/** The flags of serve, as the `serve` verb takes them. */
export type ServeFlags = Omit<ServeOptions, "io" | "stopSignals">;

/** `--allow-origin` (repeatable): each value an http(s) origin, kept in normalised form. */
export function allowOriginArg(raw: string, previous: string[] = []): string[] {
  const origin = normalizeAllowedOrigin(raw);
  if (origin === null) {
    throw new InvalidArgumentError("must be an http(s) origin such as http://localhost:3000 (no path, query or user info)");
  }
  return previous.includes(origin) ? previous : [...previous, origin];
}

/** `--port`: an integer 0..65535 (0 = a port chosen by the OS). */
export function portArg(raw: string): number {
  const text = raw.trim();
  if (!/^[+-]?\d{1,12}$/.test(text)) {
    throw new InvalidArgumentError(`invalid port: '${raw.slice(0, 40)}' is not an integer`);
  }
  const port = Number(text);
  if (port < 0 || port > 65535) throw new InvalidArgumentError(`invalid port: ${port} is outside the valid range 0..65535`);
  return port;
}
