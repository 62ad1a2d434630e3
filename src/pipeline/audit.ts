// Append-only audit log of pipeline checks. Raw input is never written: it is identified by an
// HMAC keyed with a per-directory random key (a bare SHA-256 confirms a guessed text); blocked
// lines keep their reasons. Each line is one O_APPEND write never through a symlink
// (core/append.ts), so concurrent checks never interleave; write errors go to `onWarning`, so
// logging can never fail a check.
import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { appendNoFollowSync } from "../core/append.js";
import type { PipelineVerdict } from "./verdict.js";

export const AUDIT_FILE = "canary-audit.jsonl";
export const ALERTS_FILE = "canary-alerts.jsonl";
const AUDIT_KEY_FILE = "audit-hmac.key";

/** A verdict's outcome, first match wins: which callback fires, and (`unexercised` told apart by layer) the audit label. */
export function outcomeOf(verdict: PipelineVerdict): "blocked" | "degraded" | "flagged" | "unexercised" | "safe" {
  if (!verdict.safe) return "blocked";
  if (verdict.degraded) return "degraded";
  if (verdict.advisory.flagged) return "flagged";
  return verdict.canaryStatus !== "exercised" ? "unexercised" : "safe";
}

/** Reasons behind a verdict: the advisory's signals, else the blocking layer's signals. */
function verdictSignals(verdict: PipelineVerdict): string[] {
  if (verdict.advisory.signals.length > 0) return [...verdict.advisory.signals];
  const blocking = verdict.layers.find((layer) => layer.status === "blocked");
  return blocking ? [...blocking.signals] : [];
}

/** Append-only audit log of pipeline checks in a directory; write errors are reported, never thrown. */
export class AuditLogger {
  readonly logDir: string;
  readonly #key: Buffer;
  readonly #onWarning: (message: string) => void;

  constructor(logDir: string, onWarning: (message: string) => void) {
    this.logDir = logDir;
    this.#onWarning = onWarning;
    mkdirSync(logDir, { recursive: true, mode: 0o700 });
    this.#key = loadOrCreateKey(join(logDir, AUDIT_KEY_FILE));
  }

  /** Appends one line for a check of `text`. */
  record(text: string, verdict: PipelineVerdict): void {
    try {
      const outcome = outcomeOf(verdict);
      // One line of the log: no raw input, the text is identified by a keyed HMAC.
      const line = {
        timestamp: new Date().toISOString(),
        input_hmac: createHmac("sha256", this.#key).update(text, "utf8").digest("hex"),
        verdict: outcome !== "unexercised" ? outcome : verdict.layers.some((layer) => layer.name === "structural_filter") ? "structural_only" : "unscreened",
        blocked_by: verdict.blockedBy,
        risk_score: verdict.canaryRiskScore,
        degraded: verdict.degraded,
        canary_status: verdict.canaryStatus,
        analysis_method: verdict.analysisMethod,
        analysis_status: verdict.analysisStatus,
        signals: verdictSignals(verdict),
        latency_ms: Math.round(verdict.totalLatency * 100_000) / 100,
      };
      const serialized = `${JSON.stringify(line)}\n`;
      appendNoFollowSync(join(this.logDir, AUDIT_FILE), serialized);
      if (line.verdict !== "safe") appendNoFollowSync(join(this.logDir, ALERTS_FILE), serialized);
    } catch (error) {
      this.#onWarning(`audit log write failed (${error instanceof Error ? error.constructor.name : "unknown"})`);
    }
  }
}

function loadOrCreateKey(path: string): Buffer {
  try {
    const existing = readFileSync(path, "utf8").trim();
    if (/^[0-9a-f]{64}$/.test(existing)) return Buffer.from(existing, "hex");
  } catch {
    // No key yet: create one below.
  }
  const key = randomBytes(32);
  try {
    writeFileSync(path, `${key.toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    return key;
  } catch {
    // Another logger created it between our read and write: use theirs.
    const raced = readFileSync(path, "utf8").trim();
    if (/^[0-9a-f]{64}$/.test(raced)) return Buffer.from(raced, "hex");
    throw new Error("audit key file is unreadable or malformed");
  }
}
