// Progress on stderr for long runs: items done/total, elapsed, rate and ETA. Drawn only when
// stderr is a TTY (never in CI logs or pipes), at most a few times per second, and cleared at
// the end. Colour is not used, so NO_COLOR needs nothing here.
import type { CliIo } from "./io.js";

export interface ProgressReporter {
  update(done: number, total: number): void;
  /** Clears the line for a message written next; the next update draws it again below. */
  interrupt(): void;
  /** Clears the line; later updates are ignored. */
  finish(): void;
}

const SILENT: ProgressReporter = { update() {}, interrupt() {}, finish() {} };

/** Before this many seconds, or this share of the items, the rate says too little for an ETA. */
const MIN_ETA_SECONDS = 5;
const MIN_ETA_SHARE = 0.02;

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "--:--";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  const mm = String(m).padStart(2, "0");
  const ss = String(r).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

export function createProgress(io: CliIo, label: string, now: () => number = () => Date.now()): ProgressReporter {
  if (!io.stderrIsTTY) return SILENT;
  const started = now();
  let lastDraw = 0;
  let drawn = false;
  let finished = false;
  return {
    update(done, total) {
      // A check abandoned by an interrupt can still report late: after finish() (the line is
      // cleared and an error or summary may follow) nothing is drawn again.
      if (finished) return;
      const t = now();
      if (done < total && t - lastDraw < 200) return;
      lastDraw = t;
      const elapsed = (t - started) / 1000;
      const rate = elapsed > 0 ? done / elapsed : 0;
      // A rate from the first seconds (start-up, the canary's warm-up) gives an absurd ETA: none
      // is shown until a few seconds or a few percent have gone by.
      const settled = elapsed >= MIN_ETA_SECONDS || done >= total * MIN_ETA_SHARE;
      const eta = rate > 0 && settled ? (total - done) / rate : Number.NaN;
      io.stderr.write(`\r${label}: ${done}/${total}  elapsed ${formatDuration(elapsed)}  ${rate.toFixed(2)}/s  ETA ${formatDuration(eta)}\x1b[K`);
      drawn = true;
    },
    interrupt() {
      if (!drawn) return;
      io.stderr.write("\r\x1b[K");
      drawn = false;
      lastDraw = 0;
    },
    finish() {
      if (finished) return;
      finished = true;
      if (drawn) io.stderr.write("\r\x1b[K");
    },
  };
}
