#!/bin/sh
# A sharded ingest run on one big machine (docs/shards.md): the same flow as the Kubernetes
# example (kubernetes/), with `xargs -P` as the scheduler. Each shard is one process running
# kubernetes/shard-wrapper.sh, up to PARALLEL at once; then kubernetes/index-shards.sh writes
# and checks the index and prints its SHA-256.
#
# Usage: sharded-run.sh INPUT OUT_DIR SHARDS PARALLEL [ingest flags...]
#   sh examples/sharded-run.sh records.jsonl out 8 4 --ollama-url http://127.0.0.1:11434
# The ingest flags are passed on split at spaces (no flag value may contain a space).
# LITTLE_CANARY names the command (default little-canary).
set -eu

if [ "$#" -lt 4 ]; then
  echo "usage: sharded-run.sh INPUT OUT_DIR SHARDS PARALLEL [ingest flags...]" >&2
  exit 2
fi
INPUT=$1
OUT=$2
SHARDS=$3
PARALLEL=$4
shift 4
LITTLE_CANARY_ARGS="$*"
LITTLE_CANARY="${LITTLE_CANARY:-little-canary}"
export INPUT OUT SHARDS LITTLE_CANARY LITTLE_CANARY_ARGS
here=$(dirname "$0")

mkdir -p "$OUT"
# xargs exits non-zero when any shard did (a refused shard exits 3): then no index is written.
if ! seq 0 $((SHARDS - 1)) | xargs -P "$PARALLEL" -I '{}' env JOB_COMPLETION_INDEX='{}' sh "$here/kubernetes/shard-wrapper.sh"; then
  echo "sharded-run: a shard failed; no index written" >&2
  exit 3
fi
sh "$here/kubernetes/index-shards.sh"
