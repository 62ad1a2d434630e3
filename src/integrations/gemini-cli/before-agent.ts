// Gemini CLI `BeforeAgent` hook: screens the prompt through the loopback service before the agent
// loop starts and answers with one JSON object on stdout (always `decision` and `reason`),
// nothing on stderr, exit 0. Runs when loaded: scripts/build-integrations.ts bundles it into
// integrations/gemini-cli/hooks/before-agent.mjs, which runs with `node` alone.
import { runCommandHook } from "../adapter/command-hook.js";
import { GEMINI_CLI_NOTHING_TO_SCREEN, renderGeminiCli } from "./output.js";

await runCommandHook({ event: "BeforeAgent", adapterName: "this hook", render: renderGeminiCli, nothingToScreen: GEMINI_CLI_NOTHING_TO_SCREEN });
process.exitCode = 0;
