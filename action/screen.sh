#!/usr/bin/env bash
# The action's screen step: runs `little-canary screen` with the action's inputs (given as
# INPUT_* environment variables), the SARIF log and GitHub annotations on, the batch document
# to a file; records exit-code, sarif and batch in $GITHUB_OUTPUT; always exits 0 so the upload
# step runs, and the gate step (gate.sh) turns the recorded code into the step's result.
# LITTLE_CANARY_CLI is the CLI to run: the install step's output `cli` (the tests give a bundle).
set -euo pipefail
: "${INPUT_INPUT:?the action input 'input' (a JSONL file) is required}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is set by the Actions runner}"
cli="${LITTLE_CANARY_CLI:?LITTLE_CANARY_CLI is set from the install step output}"
sarif="${INPUT_SARIF:-little-canary.sarif}"
batch="${INPUT_BATCH:-little-canary-batch.json}"
# Split on whitespace only (newlines too: a multi-line `args:` keeps every line): no globbing,
# no quotes, no expansion of what the input says. `read -d ''` reads to the end and then
# reports end of input, which is not an error here.
set -f
extra=()
read -r -d '' -a extra <<<"${INPUT_ARGS:-}" || true
set +f
# The batch document is written by the shell's redirection, which truncates its file before
# screen starts, and the old SARIF log is deleted first: either one naming the input file would
# destroy the batch to be screened. Refused, recorded as screen's refusal (exit 2).
refuse() {
  echo "::error title=little-canary::$1" >&2
  { echo "exit-code=2"; echo "batch=$batch"; echo "sarif="; } >>"$GITHUB_OUTPUT"
  exit 0
}
# A path as one file on disk, existing or not: its directory resolved through symlinks, then its
# name (`-ef` alone compares only files that exist, and neither output exists before the run).
# The directory is resolved by the system's realpath (`link/..` is the parent of where the link
# points, not the folded text), and only when it does not exist is it folded as text.
where() {
  node -e 'const path = require("node:path"); const given = process.argv[1]; let dir;
    try { dir = require("node:fs").realpathSync.native(path.dirname(given)); } catch { dir = path.resolve(path.dirname(given)); }
    process.stdout.write(path.join(dir, path.basename(given)));' -- "$1"
}
input_at="$(where "$INPUT_INPUT")"
batch_at="$(where "$batch")"
sarif_at="$(where "$sarif")"
if [[ "$batch" -ef "$INPUT_INPUT" || "$batch_at" == "$input_at" ]]; then refuse "the action input 'batch' names the input file"; fi
if [[ "$sarif" -ef "$INPUT_INPUT" || "$sarif_at" == "$input_at" ]]; then refuse "the action input 'sarif' names the input file"; fi
if [[ "$sarif" -ef "$batch" || "$sarif_at" == "$batch_at" ]]; then refuse "the action inputs 'sarif' and 'batch' name the same file"; fi
if [[ -d "$sarif" || -d "$batch" ]]; then refuse "the action inputs 'sarif' and 'batch' must name files, not directories"; fi
# Arguments that would make screen check nothing and exit 0 (help, the version), or write the
# SARIF log somewhere the upload step does not look, are refused rather than passed on.
for arg in "${extra[@]}"; do
  case "$arg" in
    -h | --help | -V | --version) refuse "the action input 'args' holds $arg, which screens nothing" ;;
    --sarif | --sarif=* | --github) refuse "the action input 'args' holds $arg; use the action's own 'sarif' input" ;;
  esac
done
# The canary's backend comes from the inputs `ollama-url` and `canary-model` unless 'args' chooses
# another: a pool (--canary-endpoint) replaces the URL and keeps the model name; the embedded canary
# (--canary) and no canary (--no-canary) take neither. Passing them anyway would make screen refuse
# flags the user never wrote ("give --ollama-url or --canary-endpoint, not both").
chosen=""
for arg in "${extra[@]}"; do
  case "$arg" in
    --no-canary | --canary | --canary=*) chosen="none" ;;
    --canary-endpoint | --canary-endpoint=*) [[ "$chosen" == "none" ]] || chosen="pool" ;;
  esac
done
model=(--canary-model "${INPUT_CANARY_MODEL:-qwen2.5:1.5b}")
case "$chosen" in
  none) backend=() ;;
  pool) backend=("${model[@]}") ;;
  *) backend=(--ollama-url "${INPUT_OLLAMA_URL:-http://localhost:11434}" "${model[@]}") ;;
esac
rm -f -- "$sarif"
code=0
# The input after `--`: a file name that begins with `-` is a file, never an option.
node "$cli" screen \
  "${backend[@]}" \
  --mode "${INPUT_MODE:-full}" \
  --concurrency "${INPUT_CONCURRENCY:-1}" \
  --sarif "$sarif" --github \
  "${extra[@]}" -- "$INPUT_INPUT" >"$batch" || code=$?
{
  echo "exit-code=$code"
  echo "batch=$batch"
  if [[ -f "$sarif" ]]; then echo "sarif=$sarif"; else echo "sarif="; fi
} >>"$GITHUB_OUTPUT"
echo "little-canary: screen exited $code" >&2
