// Defensive reads of documents that have not been validated. Only own data properties count,
// so an inherited or prototype-polluting key can never satisfy a check.

import { isPlainObject as isObj } from "../core/guards.js";
import type { Geometry } from "../documents/segment-spans.js";

export type Obj = Record<string, unknown>;
export { isObj };

/** Own property `key` of `obj`, or undefined. */
export function own(obj: Obj, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** A number that is an exact integer (booleans and unsafe magnitudes excluded). */
export function isInt(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value);
}

export function isWellFormedString(value: unknown): value is string {
  return typeof value === "string" && value.isWellFormed();
}

export function sameKeySet(obj: Obj, keys: readonly string[]): boolean {
  const present = Object.keys(obj);
  return present.length === keys.length && keys.every((k) => Object.hasOwn(obj, k));
}

/** Segment geometry of a manifest's policy (`manifest`: the document or its head), when it is usable to rebuild plans. */
export function planGeometry(manifest: Obj): Geometry | null {
  const policy = own(manifest, "policy");
  if (!isObj(policy)) return null;
  const chars = own(policy, "segment_chars");
  const overlap = own(policy, "segment_overlap");
  if (!isInt(chars) || !isInt(overlap) || chars < 1 || overlap < 0 || overlap >= chars) return null;
  return { chars, overlap };
}

/** What a manifest's head bounds each checked record by: its policy's limits, and whether the structural layer ran. */
export interface RecordBounds {
  readonly maxSegments: number;
  readonly maxMetadataKeys: number;
  /**
   * Whether the pipeline records the structural layer on (every verdict carries its layer) or off
   * (none does); null when it records neither (a pipeline this library did not build).
   */
  readonly structuralFilter: boolean | null;
}

/** The record bounds of a manifest (`manifest`: the document or its head), when its policy's limits are whole numbers. */
export function recordBounds(manifest: Obj): RecordBounds | null {
  const policy = own(manifest, "policy");
  if (!isObj(policy)) return null;
  const maxSegments = own(policy, "max_segments");
  const maxMetadataKeys = own(policy, "max_metadata_keys");
  if (!isInt(maxSegments) || !isInt(maxMetadataKeys) || maxSegments < 0 || maxMetadataKeys < 0) return null;
  const pipeline = own(manifest, "pipeline");
  const structural = isObj(pipeline) ? own(pipeline, "structural_filter") : null;
  return { maxSegments, maxMetadataKeys, structuralFilter: typeof structural === "boolean" ? structural : null };
}
