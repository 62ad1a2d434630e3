// The per-test fixtures of the service suites: a loopback Ollama stand-in and a running service,
// each closed after the test (last opened, first closed), with `cleanup` for anything else a test holds.
import { afterEach } from "vitest";
import { startOllamaStandIn, type OllamaStandIn } from "./ollama-stand-in.js";
import { startService, type RunningService } from "./server-harness.js";

/** What a service suite opens per test; call once at the top of the file (it registers the afterEach). */
export interface ServiceFixtures {
  /** Closers run after each test, in reverse order. */
  readonly cleanup: Array<() => Promise<void> | void>;
  /** A stand-in that answers every chat with a benign sentence, after `latencyMs`. */
  standIn(latencyMs?: number): Promise<OllamaStandIn>;
  /** A running service, closed after the test. */
  service(...args: Parameters<typeof startService>): Promise<RunningService>;
}

export function serviceFixtures(): ServiceFixtures {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const close of cleanup.splice(0).reverse()) await close();
  });
  return {
    cleanup,
    async standIn(latencyMs = 0) {
      const ollama = await startOllamaStandIn({ reply: "Paris is the capital of France.", latencyMs });
      cleanup.push(() => ollama.close());
      return ollama;
    },
    async service(...args) {
      const running = await startService(...args);
      cleanup.push(() => running.close());
      return running;
    },
  };
}
