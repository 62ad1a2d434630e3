// Claude Code `UserPromptSubmit` hook (also Codex CLI, experimental): screens the prompt through the
// loopback service and answers with one JSON object on stdout, nothing on stderr, exit 0. Runs
// when loaded: scripts/build-integrations.ts bundles it into
// integrations/claude-code/hooks/user-prompt-submit.mjs, which runs with `node` alone.
import { runCommandHook } from "../adapter/command-hook.js";
import { CLAUDE_CODE_NOTHING_TO_SCREEN, renderClaudeCode } from "./output.js";

await runCommandHook({ event: "UserPromptSubmit", adapterName: "this hook", render: renderClaudeCode, nothingToScreen: CLAUDE_CODE_NOTHING_TO_SCREEN });
process.exitCode = 0;
