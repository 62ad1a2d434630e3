// Pi extension entry (`pi.extensions: ["./index.mjs"]`), bundled by scripts/build-integrations.ts
// into integrations/pi/index.mjs: registers the input screen.
import { createInputHandler } from "./plugin.js";

/** Pi's extension API, as far as this extension uses it. */
export interface PiExtensionApi {
  on(event: string, handler: (...args: never[]) => unknown): unknown;
}

/** Registers the input screen on Pi's `input` event. */
export default function littleCanary(pi: PiExtensionApi): void {
  pi.on("input", createInputHandler());
}
