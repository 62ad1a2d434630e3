// The eval harness's default timeout on its own, so that `eval --help` can name it without loading
// the harness (and the pipeline behind it).

/** The harness default per canary call (the Python harness's `--timeout` default), not the CLI-wide 600 s. */
export const DEFAULT_EVAL_TIMEOUT_SECONDS = 10;
