// Metadata material (exact: `verify` rebuilds it byte for byte): the text the canary screens for a record's
// labels and metadata, so an injection hidden in an id, a source or a metadata value is
// checked like body text. Lines are `id: <id>`, `source: <source>` (each only when not null)
// and `<key>: <value>` per metadata entry sorted by key in code-point order, joined by "\n"
// with no trailing newline. Values are inserted verbatim. The material is not injective
// (`{id:"x"}` and `{metadata:{id:"x"}}` give the same text); `material_sha256` tells them apart.
import { compareCodePoints } from "../core/code-point-order.js";

/** The labels and metadata of a validated record. */
export interface MaterialSource {
  readonly id: string | null;
  readonly source: string | null;
  readonly metadata: Readonly<Record<string, string>>;
}

/** The metadata material of a record: the text the canary screens for its id, source and metadata. */
export function metadataMaterial(record: MaterialSource): string {
  const lines: string[] = [];
  if (record.id !== null) lines.push(`id: ${record.id}`);
  if (record.source !== null) lines.push(`source: ${record.source}`);
  for (const key of Object.keys(record.metadata).sort(compareCodePoints)) lines.push(`${key}: ${record.metadata[key] as string}`);
  return lines.join("\n");
}
