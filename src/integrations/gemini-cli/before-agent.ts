// Gemini CLI `BeforeAgent` hook: screens the submitted prompt through the loopback Little Canary
// service before the agent loop starts and answers with exactly one JSON object on stdout
// (always `decision` and `reason`), nothing on stderr, exit 0. This module runs the hook when it
// is loaded: it is the entry that scripts/build-integrations.ts bundles into
// integrations/gemini-cli/hooks/before-agent.mjs, which runs with `node` alone.
// Configuration: LITTLE_CANARY_ENDPOINT, LITTLE_CANARY_TIMEOUT_MS, LITTLE_CANARY_FAILURE_MODE.
import { runCommandHook } from "../adapter/command-hook.js";
import { renderGeminiCli } from "./output.js";

await runCommandHook({ event: "BeforeAgent", adapterName: "this hook", render: renderGeminiCli });
process.exitCode = 0;
