// Claude Code `UserPromptSubmit` hook (also Codex CLI, experimental): screens the submitted
// prompt through the loopback Little Canary service and answers with exactly one JSON object on
// stdout, nothing on stderr, exit 0. This module runs the hook when it is loaded: it is the
// entry that scripts/build-integrations.ts bundles into
// integrations/claude-code/hooks/user-prompt-submit.mjs, which runs with `node` alone.
// Configuration: LITTLE_CANARY_ENDPOINT, LITTLE_CANARY_TIMEOUT_MS, LITTLE_CANARY_FAILURE_MODE.
import { runCommandHook } from "../adapter/command-hook.js";
import { renderClaudeCode } from "./output.js";

await runCommandHook({ event: "UserPromptSubmit", adapterName: "this hook", render: renderClaudeCode });
process.exitCode = 0;
