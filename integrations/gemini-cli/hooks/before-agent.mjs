#!/usr/bin/env node
// Gemini CLI `BeforeAgent` hook: screens the submitted prompt through the loopback Little Canary
// service before the agent loop starts and answers with exactly one JSON object on stdout
// (always `decision` and `reason`), nothing on stderr, exit 0. Runs with `node` alone.
// Configuration: LITTLE_CANARY_ENDPOINT, LITTLE_CANARY_TIMEOUT_MS, LITTLE_CANARY_FAILURE_MODE.
import { runCommandHook } from "../_shared/command-hook.mjs";
import { renderGeminiCli } from "./output.mjs";

await runCommandHook({ event: "BeforeAgent", adapterName: "this hook", render: renderGeminiCli });
process.exitCode = 0;
