#!/bin/sh
# One shard of a sharded ingest run (docs/shards.md), as each pod of the Indexed Job in
# shards-job.yaml runs it, and as sharded-run.sh runs it on one machine.
#
# Kubernetes numbers the pods of an Indexed Job 0..completions-1 in JOB_COMPLETION_INDEX, and
# `ingest --shard K/N` takes the same 0-based K, so shard K is pod K.
#
# Exit codes, for the Job's podFailurePolicy:
#   0  ingest published its pair (ingest's own 0, 1 or 2: every record admitted, some held for
#      detection, some held for an operational reason). The real code is kept in
#      $OUT/shard-K.exit; the held records are in the manifest and the index counts them.
#   3  ingest refused: nothing was written (bad input, bad flags, canary unreachable or wrong
#      at the start). Retrying would refuse again, so the policy fails this index at once.
#   other  the process died (out of memory, killed): the Job retries the index, up to
#      backoffLimitPerIndex times.
#
# Environment: SHARDS (N, required), JOB_COMPLETION_INDEX (K, required), INPUT (default
# /data/input.jsonl), OUT (default /data/shards), LITTLE_CANARY (the command, default
# little-canary), LITTLE_CANARY_ARGS (more ingest flags, split at spaces).
set -eu

: "${SHARDS:?set SHARDS to the number of shards (the Job's completions)}"
: "${JOB_COMPLETION_INDEX:?set JOB_COMPLETION_INDEX to this shard's 0-based index}"
INPUT="${INPUT:-/data/input.jsonl}"
OUT="${OUT:-/data/shards}"
LITTLE_CANARY="${LITTLE_CANARY:-little-canary}"
K="$JOB_COMPLETION_INDEX"
MANIFEST="$OUT/shard-$K.manifest.json"
EXPORT="$OUT/shard-$K.export.json"

mkdir -p "$OUT"
set +e
# --overwrite: a retried pod replaces the pair of an attempt that died after publishing.
# shellcheck disable=SC2086 # LITTLE_CANARY and LITTLE_CANARY_ARGS are word lists on purpose
$LITTLE_CANARY ingest "$INPUT" --shard "$K/$SHARDS" \
  --manifest "$MANIFEST" --export "$EXPORT" \
  --overwrite --wait-lock 60 ${LITTLE_CANARY_ARGS:-}
code=$?
set -e

case "$code" in
  0 | 1 | 2)
    printf '%s\n' "$code" >"$OUT/.shard-$K.exit.tmp"
    mv "$OUT/.shard-$K.exit.tmp" "$OUT/shard-$K.exit"
    exit 0
    ;;
  3)
    echo "shard $K/$SHARDS: ingest refused (exit 3), nothing written" >&2
    # An export with no manifest beside it is what an attempt killed while publishing leaves;
    # ingest will not replace it, so a retry cannot help (docs/shards.md, "Exit codes").
    if [ -e "$EXPORT" ] && [ ! -e "$MANIFEST" ]; then
      echo "shard $K/$SHARDS: $EXPORT has no manifest beside it (left by an attempt killed while publishing); if no copy of that attempt's manifest is in use, delete it and run the Job again" >&2
    fi
    exit 3
    ;;
  *)
    echo "shard $K/$SHARDS: ingest ended with exit $code" >&2
    exit "$code"
    ;;
esac
