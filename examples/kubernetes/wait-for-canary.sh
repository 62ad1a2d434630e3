#!/bin/sh
# Waits, for a bounded time, until the canary answers GET /v1/models with 200 and a model list:
# the init container of every shard pod (shards-job.yaml) runs it before shard-wrapper.sh.
#
# Why: `kubectl apply -k` creates the vLLM Deployment and the shards' Job together. Without this
# wait every shard starts while vLLM is still pulling its image and loading the model, ingest
# refuses with exit 3 (canary unreachable), the podFailurePolicy fails each index at once and
# `maxFailedIndexes: 0` fails the Job. vLLM answers /v1/models only once the model is loaded.
#
# Exit codes: 0 the canary is ready. 1 it was not ready within WAIT_SECONDS (or a setting is
# wrong); the message says which. In a pod this is the init container's failure: it is not
# ingest's exit 3, so the Job retries the index (up to backoffLimitPerIndex) instead of failing
# it at once.
#
# Environment: CANARY_MODELS_URL (required; e.g. http://little-canary-vllm:8000/v1/models),
# WAIT_SECONDS (default 1800), POLL_SECONDS (default 5), NODE (the command, default node: the
# image has Node and no curl).
set -eu

: "${CANARY_MODELS_URL:?set CANARY_MODELS_URL to the canary GET /v1/models URL}"
WAIT_SECONDS="${WAIT_SECONDS:-1800}"
POLL_SECONDS="${POLL_SECONDS:-5}"
NODE="${NODE:-node}"

for setting in "WAIT_SECONDS=$WAIT_SECONDS" "POLL_SECONDS=$POLL_SECONDS"; do
  case "${setting#*=}" in
    '' | *[!0-9]* | 0*)
      echo "wait-for-canary: ${setting%%=*} must be a positive whole number of seconds" >&2
      exit 1
      ;;
  esac
done

# One GET, bounded by its own deadline: ready means 200 and a JSON body whose `data` lists at
# least one model. The body is read only to that end and never printed.
probe() {
  "$NODE" -e '
    const signal = AbortSignal.timeout(Number(process.argv[2]) * 1000);
    fetch(process.argv[1], { signal })
      .then(async (r) => {
        const body = r.status === 200 ? await r.json() : null;
        process.exit(Array.isArray(body?.data) && body.data.length > 0 ? 0 : 1);
      })
      .catch(() => process.exit(1));
  ' "$CANARY_MODELS_URL" "$1" 2>/dev/null
}

request_seconds=$((POLL_SECONDS < 10 ? POLL_SECONDS : 10))
deadline=$(($(date +%s) + WAIT_SECONDS))
echo "wait-for-canary: waiting up to ${WAIT_SECONDS}s for GET $CANARY_MODELS_URL" >&2
while :; do
  if probe "$request_seconds"; then
    echo "wait-for-canary: the canary is ready" >&2
    exit 0
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "wait-for-canary: the canary did not answer GET $CANARY_MODELS_URL with its models within ${WAIT_SECONDS}s; check it with kubectl rollout status deployment/little-canary-vllm (the Job retries this shard up to backoffLimitPerIndex times)" >&2
    exit 1
  fi
  sleep "$POLL_SECONDS"
done
