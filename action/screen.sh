#!/usr/bin/env bash
# The action's screen step: runs `little-canary screen` with the action's inputs (given as
# INPUT_* environment variables), the SARIF log and GitHub annotations on, the batch document
# to a file; records exit-code, sarif and batch in $GITHUB_OUTPUT; always exits 0 so the upload
# step runs, and the gate step (gate.sh) turns the recorded code into the step's result.
# LITTLE_CANARY_CLI overrides the CLI to run (the tests run this script against a bundle).
set -euo pipefail
: "${INPUT_INPUT:?the action input 'input' (a JSONL file) is required}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is set by the Actions runner}"
cli="${LITTLE_CANARY_CLI:-${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is set by the Actions runner}/dist/cli/main.js}"
sarif="${INPUT_SARIF:-little-canary.sarif}"
batch="${INPUT_BATCH:-little-canary-batch.json}"
# Split on whitespace only: no globbing, no quotes, no expansion of what the input says.
set -f
read -r -a extra <<<"${INPUT_ARGS:-}"
set +f
rm -f -- "$sarif"
code=0
node "$cli" screen "$INPUT_INPUT" \
  --ollama-url "${INPUT_OLLAMA_URL:-http://localhost:11434}" \
  --canary-model "${INPUT_CANARY_MODEL:-qwen2.5:1.5b}" \
  --mode "${INPUT_MODE:-full}" \
  --concurrency "${INPUT_CONCURRENCY:-1}" \
  --sarif "$sarif" --github \
  "${extra[@]}" >"$batch" || code=$?
{
  echo "exit-code=$code"
  echo "batch=$batch"
  if [[ -f "$sarif" ]]; then echo "sarif=$sarif"; else echo "sarif="; fi
} >>"$GITHUB_OUTPUT"
echo "little-canary: screen exited $code" >&2
