#!/usr/bin/env node
// Claude Code `UserPromptSubmit` hook (also Codex CLI, experimental): screens the submitted
// prompt through the loopback Little Canary service and answers with exactly one JSON object on
// stdout, nothing on stderr, exit 0. Runs with `node` alone: no dependencies, no build step.
// Configuration: LITTLE_CANARY_ENDPOINT, LITTLE_CANARY_TIMEOUT_MS, LITTLE_CANARY_FAILURE_MODE.
import { runCommandHook } from "../_shared/command-hook.mjs";
import { renderClaudeCode } from "./output.mjs";

await runCommandHook({ event: "UserPromptSubmit", adapterName: "this hook", render: renderClaudeCode });
process.exitCode = 0;
