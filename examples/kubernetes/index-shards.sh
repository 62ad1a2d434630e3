#!/bin/sh
# The last step of a sharded ingest run (docs/shards.md): one index over the N shards' pairs,
# written only when every pair verifies and the shards tile the input exactly once. Run by
# index-job.yaml once the shards' Job is complete, and by sharded-run.sh on one machine.
#
# Prints the index's SHA-256 (the value a consumer pins) on the last line of stdout. Exit codes
# are those of `little-canary index`: 0 written, 1 a problem (nothing written), 3 unreadable
# files or usage.
#
# Environment: SHARDS (N, required), OUT (default /data/shards), INDEX (default
# $OUT/index.json), LITTLE_CANARY (the command, default little-canary).
set -eu

: "${SHARDS:?set SHARDS to the number of shards}"
OUT="${OUT:-/data/shards}"
INDEX="${INDEX:-$OUT/index.json}"
LITTLE_CANARY="${LITTLE_CANARY:-little-canary}"

# Every shard's pair, K = 0..N-1; a missing one is reported by index, naming the shard.
set --
k=0
while [ "$k" -lt "$SHARDS" ]; do
  set -- "$@" "$OUT/shard-$k.manifest.json:$OUT/shard-$k.export.json"
  k=$((k + 1))
done

# shellcheck disable=SC2086 # LITTLE_CANARY is a word list on purpose
$LITTLE_CANARY index --out "$INDEX" "$@"
# shellcheck disable=SC2086
$LITTLE_CANARY verify --index "$INDEX"
sha256sum "$INDEX" | cut -d' ' -f1
