// The defaults and value rules a command's flags are defined with. Kept apart from the verbs, and
// made only of small leaf modules, so defining every command stays cheap: the program defines all
// of them before it knows which one runs.
export { DEFAULT_CANARY_MODEL, DEFAULT_OLLAMA_URL, DEFAULT_OPENAI_MODEL } from "../canary/defaults.js";
export { MODEL_DIR_ENV } from "../canary/embedded-models.js";
export { parseTimeoutFlag, TIMEOUT_ENV } from "../canary/timeout.js";
export { parseShardSpec, type ShardSpec } from "../documents/shard-spec.js";
export { DEFAULT_EVAL_TIMEOUT_SECONDS } from "../eval/timeout-default.js";
export { DEFAULT_MAX_CANARY_FAILURES } from "../pipeline/circuit-breaker.js";
export { normalizeAllowedOrigin } from "../server/allowed-origin.js";
export { DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_QUEUE, DEFAULT_PORT, DEFAULT_READ_TIMEOUT_MS } from "../server/limits.js";
