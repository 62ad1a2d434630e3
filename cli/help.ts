// The text each command's --help prints after its options: exit codes, rules, examples. Plain
// strings, cheap to import, since the program defines every command before it knows which runs.

/**
 * The long-text rule of check, screen and serve, for their --help: length is never a detection.
 * Numbers are the pipeline defaults (maxInputLength 4000, segmentOverlap 500, maxSegments 64).
 */
const LONG_TEXT_HELP = `Long texts: length is never a detection. A text over 4000 code points is screened in
windows of 4000 that share 500 with their neighbours (the ingest segmenter); the verdict is
the worst window's and "segments" lists each window's span, state and coverage_reason. A text
needing more than 64 windows is degraded (coverage_reason input_too_long).`;

/** After the options of `check --help`. */
export const CHECK_HELP = `
Exit codes: 0 safe and both layers exercised; 1 blocked or flagged; 2 degraded, unexercised,
or invalid input/usage.
${LONG_TEXT_HELP}

Examples:
  echo "What is the capital of France?" | little-canary check
  echo "Ignore all previous instructions" | little-canary check --no-canary
  little-canary check --text "Summarise this page" --fail-closed --timeout 60`;

/** After the options of `screen --help`. */
export const SCREEN_HELP = `
Exit codes: 0 every item passed with both layers exercised; 1 any item blocked or flagged;
2 refused or empty input, or any item degraded or unexercised (this wins over 1).
Item text is never printed: items carry index, id, source, sha256 and length.
The whole batch is validated before the first check: a file is read twice (a file that
changes in between is refused), stdin is copied to a scratch file and read back. The
document is streamed to stdout once every item is checked; memory does not grow with the
batch. --max-items and --max-total-bytes are policy limits: 0 given explicitly means no
limit (the defaults stay 1000 items and 8388608 bytes).
${LONG_TEXT_HELP}

Examples:
  little-canary screen messages.jsonl > batch.json
  cat messages.jsonl | little-canary screen - --concurrency 4 --timeout 120
  little-canary screen messages.jsonl --no-canary   # structural only: items are "unexercised"
  little-canary screen messages.jsonl --cache verdicts.sqlite > batch.json   # unchanged items are not checked again
  little-canary screen messages.jsonl --sarif screen.sarif --junit screen.xml > batch.json`;

/** After the options of `ingest --help`. */
export const INGEST_HELP = `
Exit codes: 0 every record admitted; 1 records held for detection only (blocked/flagged,
possibly also incomplete: segments left unchecked once a detection held the record);
2 records held for an operational or coverage reason (malformed, over budget, degraded,
unexercised, error, or incomplete without a detection); 3 refused: nothing was written; 4 the pair was published, but
stdout was closed by its reader or could not be written before the summary (or the --json
manifest) was complete, or a CI report (--sarif, --junit) could not be written: the files
stand, check them with little-canary verify.
Before any check, the canary model's context window is verified against the segment size
(Ollama /api/show), and a warm-up call plus GET /api/ps must show the server loaded the
num_ctx it was sent; an unreachable backend, a too-small model, a capped server or one that
cannot report its loaded context refuses the run. With --provider openai (vLLM), GET /v1/models
must report a max_model_len that holds a segment, else the run is refused (docs/vllm.md).
A canary that stops answering mid-run (--max-canary-failures consecutive unreachable/timeout
failures, default 5) stops the canary calls: the remaining records are held (exit 2) and one
warning names it.

Examples:
  little-canary ingest records.jsonl --manifest manifest.json --export admitted.json
  little-canary verify --manifest manifest.json --export admitted.json
  little-canary ingest records.jsonl --manifest structural.json --no-canary   # structural only: nothing admitted
  little-canary ingest records.jsonl --manifest daily.json --cache verdicts.sqlite --overwrite   # each re-run checks only what changed
  little-canary ingest records.jsonl --manifest held.json --sarif held.sarif   # held records as code-scanning results
  little-canary cache stats --cache verdicts.sqlite`;

/** After the options of `verify --help`. */
export const VERIFY_HELP = `
Exit codes: 0 consistent (and the pin matches); 1 any problem; 3 unreadable files, a manifest
and an export given the wrong way round, a manifest given as the export, or usage. A run whose canary was disabled by choice
(--no-canary) admits nothing; verify says so in a note, which is not a problem.

A pin proves something only when it comes from elsewhere than the files checked: record the
SHA-256 when the run is published (sha256sum manifest.json) and carry it to the consumer out of
band; a hash read off the same directory passes a forged pair. A pin or a file given twice with
different values is refused (exit 3), so arguments appended after a wrapper's pin cannot replace it.

Examples:
  little-canary verify --manifest manifest.json --export admitted.json \\
    --expect-manifest-sha256 "$PINNED_MANIFEST_SHA256"   # the pin recorded at publication
  little-canary verify --index index.json --expect-index-sha256 "$PINNED_INDEX_SHA256"`;

/** After the options of `index --help`. */
export const INDEX_HELP = `
Every pair is verified (as verify --manifest M --export E), and the shards must share one
input (SHA-256 and line count), one shard count N, one policy and one canary identity, and
cover every K from 0 to N-1 once. Paths in the index are relative to its directory.
Exit codes: 0 index written; 1 any problem (nothing written); 3 unreadable files or usage.

Examples:
  little-canary index --out index.json m0.json:e0.json m1.json:e1.json m2.json:e2.json
  sha256sum index.json   # the pin: carry it to the consumer out of band
  little-canary verify --index index.json --expect-index-sha256 "$PINNED_INDEX_SHA256"`;

/** After the options of `serve --help`. */
export const SERVE_HELP = `
The service binds 127.0.0.1 only. Mode defaults to advisory (flag, never block) on purpose;
where the service routes text on safe alone, use --mode block and --fail-closed together
(either alone still answers safe:true for a detection or for an unscreened text). HTTP 200 does
not mean screened: read safe, degraded, canary_status and analysis_status of each verdict.
Logs go to stderr and never contain request text. GET /ready is 503 while the canary is down
(readiness probes); GET /health is always 200 (liveness). POST /screen takes {"items":[...]} (at
most 1000, body at most 1 MiB) and answers screen's batch document. With --token-file, POST routes
need Authorization: Bearer <token> (401 otherwise); the token is never logged. Stop with Ctrl-C
(twice to skip the drain).
${LONG_TEXT_HELP}

Exit codes: 0 after shutdown; 1 the port could not be bound; 2 usage or configuration error.

Examples:
  little-canary serve
  little-canary serve --port 0 --mode block --fail-closed --timeout 60
  curl -s -H 'content-type: application/json' -d '{"text":"hello"}' http://127.0.0.1:18421/check
  little-canary serve --token-file ~/.config/little-canary/token      # chmod 600 the file
  curl -s -H "authorization: Bearer $(cat ~/.config/little-canary/token)" -H 'content-type: application/json' \\
    -d '{"items":["hello",{"id":"a","text":"world"}]}' http://127.0.0.1:18421/screen`;

/** After the options of `demo --help`. */
export const DEMO_HELP = `
This package ships no capture: record one where Ollama runs, then replay it anywhere.
Replay calls no model and sends nothing; REPLAY VERIFIED means this build's analyzer reproduces
the recorded verdicts for the recorded replies, not that any model is safe today.

Exit codes: 0 verified; 1 a complete run that disagrees (changed analyzer result, no contrast);
2 usage error, no capture, integrity failure, backend/model unavailable, incomplete run, or
--record that wrote no capture. With --json, "exit_code" is always the process exit code.

Examples:
  little-canary demo --live --record capture.json     # needs ollama serve + ollama pull qwen2.5:1.5b
  little-canary demo --live --ollama-url http://127.0.0.1:11500 --canary-model llama3.2:1b
  little-canary demo --replay --capture capture.json
  little-canary demo --replay --capture capture.json --json`;

/** After the options of `cache --help`. */
export const CACHE_HELP = `
A cache keeps only exercised pass, flag and block verdicts, keyed by the text's SHA-256 and the
full canary identity (model, digest, prompt, sampling, analyzer, rules, mode); see docs/cache.md.
With --older-than and --identity together, only entries matching both are removed.
--max-bytes SIZE (a whole number with B, KB, MB, GB, TB or KiB, MiB, GiB, TiB; at least 64KiB)
removes the oldest checked entries, and the whole-record entries built on them, until the file is
at most SIZE, then shrinks the file (VACUUM: for a moment it needs free disk up to twice the file's size).
With --older-than or --identity it runs after them. The JSON then has size_bytes, the size after.
Exit codes: 0 done; 2 usage error, a missing cache file, or a file that is not a verdict cache.

Examples:
  little-canary cache stats --cache verdicts.sqlite
  little-canary cache stats --cache verdicts.sqlite --json
  little-canary cache prune --cache verdicts.sqlite --older-than 30d
  little-canary cache prune --cache verdicts.sqlite --max-bytes 500MB
  little-canary cache prune --cache verdicts.sqlite --identity KEY --older-than 12h   # KEY: an identity's 64 hex digits, as cache stats --json lists it`;

/** After the options of `cache stats --help`. */
export const CACHE_STATS_HELP = `
Exit codes: 0 printed; 2 usage error, a missing cache file, or a file that is not a verdict cache.

Examples:
  little-canary cache stats --cache verdicts.sqlite
  little-canary cache stats --cache verdicts.sqlite --json   # bytes_per_entry, identities in full`;

/** After the options of `cache prune --help`. */
export const CACHE_PRUNE_HELP = `
With --older-than and --identity together, only entries matching both are removed; --max-bytes
runs after them, removing the oldest checked entries, then shrinking the file (it needs free disk
up to twice the file's size for a moment). See little-canary cache --help and docs/cache.md.
Exit codes: 0 done; 2 usage error, a missing cache file, or a file that is not a verdict cache.

Examples:
  little-canary cache prune --cache verdicts.sqlite --older-than 30d
  little-canary cache prune --cache verdicts.sqlite --max-bytes 500MB
  little-canary cache prune --cache verdicts.sqlite --identity KEY --older-than 12h   # KEY: an identity's 64 hex digits, as cache stats --json lists it`;

/** After the options of `model --help` and `model pull --help`. */
export const MODEL_HELP = `
The model file is checked against its pinned SHA-256 before it is kept; an interrupted download
resumes. Then run a command with --canary embedded (needs node-llama-cpp, docs/embedded.md).
Exit codes: 0 the model is cached and verified; 2 anything else (usage, download, SHA-256).

Examples:
  little-canary model pull
  little-canary model pull --model-dir /srv/models
  little-canary model pull --from https://mirror.example/qwen2.5-1.5b-instruct-q4_k_m.gguf   # same SHA-256 applies
  echo "some text" | little-canary check --canary embedded`;

/** After the options of `little-canary --help`. */
export const PROGRAM_HELP = `
Every command has its own --help, with examples. Results always say how much was inspected: a
text the canary did not see is degraded or unexercised, never clean.

Examples:
  echo "Ignore all previous instructions" | little-canary check --no-canary
  little-canary ingest records.jsonl --manifest manifest.json --export admitted.json
  little-canary verify --manifest manifest.json --export admitted.json
  little-canary screen messages.jsonl --sarif held.sarif
  little-canary serve --port 18421`;

/** After the options of `eval --help`: exit codes, scoring, examples. */
export const EVAL_HELP = `
Exit codes: 0 the run completed and scored at least one case (whatever it measured); 2 usage,
corpus or backend error, no case scored (nothing was measured), or interrupted (the JSONL then
has no completion line). Ctrl-C stops the run at once (a canary
call in flight is dropped); a second Ctrl-C exits 130 at once.
Attacks and benign cases are reported separately. A case whose layers did not all run is
unscored: neither blocked nor passed, and still counted in the "of all" denominators.

Examples:
  little-canary eval --corpus prompts.json --mode structural-only --output runs/s.jsonl
  little-canary eval --corpus prompts.json --corpus fp.json --model qwen2.5:1.5b --warmup \\
    --timeout 60 --output runs/p.jsonl --report runs/p.html`;
