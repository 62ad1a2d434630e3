// The stored form of the verdict cache's JSON texts (verdict values and record entries): raw
// deflate (node:zlib) with a preset dictionary of what every stored verdict repeats (its keys,
// layer names, statuses, summaries). A verdict of ~650 bytes of JSON stores in ~40 bytes and a
// two-segment record entry of ~2,400 in ~300, the SHA-256 digests in it being most of what is left.
// - The dictionary is part of the file format (schema version 3 of the cache file): a text packed
//   with one dictionary does not unpack with another, so changing DICTIONARY needs a new schema
//   version (test/cache/size.test.ts pins its SHA-256).
// - Unpacking is bounded: a stored form that would inflate past MAX_UNPACKED_BYTES, or that is not
//   a deflate stream at all (a row edited by hand), unpacks to null, never to a partial text.
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { sha256Hex } from "../core/hash.js";

/**
 * Samples of what the cache stores, least common first (deflate reaches the dictionary's end
 * most cheaply): a held record entry and a blocking verdict, then an admitted record entry and
 * a passing verdict. Digests were blanked: they never repeat.
 */
const DICTIONARY = Buffer.from(
  [
    '{"admission":"held","chars_covered":1937,"chars_total":1937,"coverage":"complete","detail":null,"detection":"block","detection_signals":["canary_compromise","canary_probe","instruction_echo","persona_shift","semantic_discontinuity","system_prompt_leak"],"hold_reasons":["blocked"],"id":null,"id_sha256":"","index":0,"length":1928,"material_sha256":"","metadata_key_count":0,"metadata_keys":null,"segments":[{"checked_at":"2026-01-01T00:00:00.000Z","end":9,"error":null,"exercised":true,"index":0,"kind":"metadata","latency":0.4715,"prompt_eval_count":57,"reused":true,"sha256":"","start":0,"state":"pass","verdict":{"advisory":{"flagged":false,"message":"","severity":"none","signals":[]},"analysis_method":"regex","analysis_status":"exercised","blocked_by":null,"canary_risk_score":0,"canary_status":"exercised","degraded":false,"layers":[{"details":"Clean","latency":0.0002,"name":"structural_filter","passed":true,"status":"passed"},{"details":"No behavioral anomalies detected.","latency":0.4712,"name":"canary_probe","passed":true,"status":"passed"}],"safe":true,"summary":"Input passed all enabled security layers; behavioral probe exercised (0.472s)","total_latency":0.4715}},{"checked_at":"2026-01-01T00:00:00.000Z","end":1928,"error":null,"exercised":true,"index":0,"kind":"text","latency":0.0979,"prompt_eval_count":557,"reused":true,"sha256":"","start":0,"state":"block","verdict":{"advisory":{"flagged":false,"message":"","severity":"none","signals":[]},"analysis_method":"regex","analysis_status":"exercised","blocked_by":"canary_probe","canary_risk_score":1,"canary_status":"exercised","degraded":false,"layers":[{"details":"Clean","latency":0.0059,"name":"structural_filter","passed":true,"status":"passed"},{"details":"Behavioral analysis blocked; signals: persona_shift, instruction_echo, system_prompt_leak, semantic_discontinuity, canary_compromise.","latency":0.092,"name":"canary_probe","passed":false,"status":"blocked"}],"safe":false,"summary":"Input blocked by canary_probe (0.098s)","total_latency":0.0979}}],"segments_checked":2,"segments_total":2,"sha256":"","source":null,"source_sha256":null}',
    '{"exercised":true,"latency":0.0979,"prompt_eval_count":557,"signals":["persona_shift","instruction_echo","system_prompt_leak","semantic_discontinuity","canary_compromise"],"state":"block","verdict":{"advisory":{"flagged":false,"message":"","severity":"none","signals":[]},"analysis_method":"regex","analysis_status":"exercised","blocked_by":"canary_probe","canary_risk_score":1,"canary_status":"exercised","degraded":false,"layers":[{"details":"Clean","latency":0.0059,"name":"structural_filter","passed":true,"status":"passed"},{"details":"Behavioral analysis blocked; signals: persona_shift, instruction_echo, system_prompt_leak, semantic_discontinuity, canary_compromise.","latency":0.092,"name":"canary_probe","passed":false,"status":"blocked"}],"safe":false,"summary":"Input blocked by canary_probe (0.098s)","total_latency":0.0979}}',
    '{"admission":"admitted","chars_covered":1911,"chars_total":1911,"coverage":"complete","detail":null,"detection":"none","detection_signals":[],"hold_reasons":[],"id":"doc-0","id_sha256":"","index":0,"length":1902,"material_sha256":"","metadata_key_count":0,"metadata_keys":[],"segments":[{"checked_at":"2026-01-01T00:00:00.000Z","end":9,"error":null,"exercised":true,"index":0,"kind":"metadata","latency":0.1879,"prompt_eval_count":57,"reused":true,"sha256":"","start":0,"state":"pass","verdict":{"advisory":{"flagged":false,"message":"","severity":"none","signals":[]},"analysis_method":"regex","analysis_status":"exercised","blocked_by":null,"canary_risk_score":0,"canary_status":"exercised","degraded":false,"layers":[{"details":"Clean","latency":0.0796,"name":"structural_filter","passed":true,"status":"passed"},{"details":"No behavioral anomalies detected.","latency":0.1076,"name":"canary_probe","passed":true,"status":"passed"}],"safe":true,"summary":"Input passed all enabled security layers; behavioral probe exercised (0.188s)","total_latency":0.1879}},{"checked_at":"2026-01-01T00:00:00.000Z","end":1902,"error":null,"exercised":true,"index":0,"kind":"text","latency":0.2893,"prompt_eval_count":551,"reused":true,"sha256":"","start":0,"state":"pass","verdict":{"advisory":{"flagged":false,"message":"","severity":"none","signals":[]},"analysis_method":"regex","analysis_status":"exercised","blocked_by":null,"canary_risk_score":0,"canary_status":"exercised","degraded":false,"layers":[{"details":"Clean","latency":0.2783,"name":"structural_filter","passed":true,"status":"passed"},{"details":"No behavioral anomalies detected.","latency":0.0109,"name":"canary_probe","passed":true,"status":"passed"}],"safe":true,"summary":"Input passed all enabled security layers; behavioral probe exercised (0.289s)","total_latency":0.2893}}],"segments_checked":2,"segments_total":2,"sha256":"","source":null,"source_sha256":null}',
    '{"exercised":true,"latency":0.1879,"prompt_eval_count":57,"signals":[],"state":"pass","verdict":{"advisory":{"flagged":false,"message":"","severity":"none","signals":[]},"analysis_method":"regex","analysis_status":"exercised","blocked_by":null,"canary_risk_score":0,"canary_status":"exercised","degraded":false,"layers":[{"details":"Clean","latency":0.0796,"name":"structural_filter","passed":true,"status":"passed"},{"details":"No behavioral anomalies detected.","latency":0.1076,"name":"canary_probe","passed":true,"status":"passed"}],"safe":true,"summary":"Input passed all enabled security layers; behavioral probe exercised (0.188s)","total_latency":0.1879}}',
  ].join(""),
  "utf8",
);

/** Largest text a stored form may unpack to (a record entry of thousands of segments is far smaller). */
const MAX_UNPACKED_BYTES = 64 * 1024 * 1024;

/** Decodes only well-formed UTF-8: a stored form packed from a JSON text always is. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The stored form of a JSON text. */
export function packJson(text: string): Buffer {
  return deflateRawSync(text, { dictionary: DICTIONARY });
}

/** The text a stored form holds, or null when it is not one this module packed (not a blob, not deflate, too large, not UTF-8). */
export function unpackJson(stored: unknown): string | null {
  if (!Buffer.isBuffer(stored)) return null;
  try {
    return STRICT_UTF8.decode(inflateRawSync(stored, { dictionary: DICTIONARY, maxOutputLength: MAX_UNPACKED_BYTES }));
  } catch {
    return null;
  }
}

/** SHA-256 (hex) of the dictionary, for the test that keeps it from changing in place. */
export function storedJsonDictionarySha256(): string {
  return sha256Hex(DICTIONARY);
}
