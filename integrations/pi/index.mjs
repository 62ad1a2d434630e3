// Pi extension entry (`pi.extensions: ["./index.mjs"]`): registers the input screen.
import { createInputHandler } from "./plugin.mjs";

export default function littleCanary(pi) {
  pi.on("input", createInputHandler());
}
