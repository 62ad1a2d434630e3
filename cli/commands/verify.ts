// `little-canary verify --manifest M [--export E] [--expect-manifest-sha256 HEX] [--json]`:
// consistency of a published pair (and the manifest's hash against a pin). Exit 0 consistent,
// 1 any problem, 3 unreadable files or usage. Problems name indices and codes, never text.
import { resolve } from "node:path";
import { UsageError } from "../../src/errors.js";
import { sha256Hex } from "../../src/manifest/hash.js";
import { readJsonDocument } from "../../src/verify/read-document.js";
import { verifyExport, verifyManifestOnly } from "../../src/verify/verify-export.js";
import type { VerifyProblem } from "../../src/verify/problems.js";
import type { CliIo } from "../io.js";
import { writeOut } from "../io.js";

export interface VerifyFlags {
  manifest: string;
  export?: string;
  expectManifestSha256?: string;
  json?: boolean;
}

export async function runVerify(flags: VerifyFlags, io: CliIo): Promise<number> {
  let pin: string | null = null;
  if (flags.expectManifestSha256 !== undefined) {
    pin = flags.expectManifestSha256.trim().toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(pin)) throw new UsageError("--expect-manifest-sha256 must be 64 hex digits");
  }
  const manifest = await readJsonDocument(resolve(io.cwd, flags.manifest), "manifest");
  const exported = flags.export === undefined ? null : await readJsonDocument(resolve(io.cwd, flags.export), "export");
  const problems: VerifyProblem[] = [];
  const manifestSha256 = sha256Hex(manifest.bytes);
  if (pin !== null && pin !== manifestSha256) {
    problems.push({ code: "manifest_sha256", message: "manifest sha256 does not match --expect-manifest-sha256" } as VerifyProblem);
  }
  problems.push(
    ...(exported === null
      ? verifyManifestOnly(manifest.value, { manifestBytes: manifest.bytes })
      : verifyExport(exported.value, manifest.value, { manifestBytes: manifest.bytes })),
  );
  const consistent = problems.length === 0;
  if (flags.json) {
    const report = { consistent, manifest_sha256: manifestSha256, pinned: pin !== null, export_checked: exported !== null, problems };
    await writeOut(io.stdout, `${JSON.stringify(report)}\n`);
  } else if (consistent) {
    await writeOut(
      io.stdout,
      `verify: consistent (manifest sha256=${manifestSha256}${pin !== null ? ", matches the pin" : ", not pinned"}` +
        `${exported === null ? "; export not checked" : ""})\n`,
    );
  } else {
    const lines = problems.map((problem) => `  - [${problem.code}] ${problem.message}`);
    await writeOut(io.stdout, `verify: ${problems.length} problem${problems.length === 1 ? "" : "s"}\n${lines.join("\n")}\n`);
  }
  return consistent ? 0 : 1;
}
