// A real `little-canary serve --no-canary` for the adapter tests: createServer from src/server on
// 127.0.0.1 port 0 around a SecurityPipeline whose canary is disabled, so every verdict is the
// structural layer's alone (`canary_status: "disabled"`). In advisory mode a structural hit is a
// flag (`safe: true`, `advisory.flagged: true`); in block mode it is a block; with fail-closed the
// flag is also refused (`blocked_by: "fail_closed"`). Each is a detection whose behavioral coverage
// is incomplete. Same shape as test/support/integrations/service.ts's ScreeningService.
import type { Server } from "node:http";
import type { DegradedPolicy, PipelineMode } from "../../src/canary/pipeline-options.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { createServer, serviceControl } from "../../src/server/create-server.js";
import { closeGracefully, listenLoopback } from "../../src/server/lifecycle.js";
import type { ScreeningService } from "../support/integrations/service.js";

/** The notice every adapter adds for a service in advisory mode (the mode a structural flag needs). */
export const ADVISORY_NOTICE =
  "Little Canary service runs in advisory mode, which never rejects a prompt; start it with --mode block to give this adapter refusal power.";

/** Starts a structural-only service (`serve --no-canary`) in `mode` (default advisory, as `serve`'s). */
export async function startStructuralOnlyService(
  options: { readonly mode?: PipelineMode; readonly onDegraded?: DegradedPolicy } = {},
): Promise<ScreeningService> {
  const pipeline = new SecurityPipeline({ mode: options.mode ?? "advisory", enableCanary: false, onDegraded: options.onDegraded ?? "fail_open" });
  const server: Server = createServer(pipeline, {});
  const port = await listenLoopback(server, 0);
  await serviceControl(server)?.health?.refresh();
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    checkEndpoint: `${origin}/check`,
    ollama: null,
    close: async () => {
      if (server.listening) await closeGracefully(server, Promise.resolve());
    },
  };
}
