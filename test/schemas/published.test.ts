// A published JSON Schema is never changed in place (docs/compatibility.md): each file under
// schemas/ is held to the SHA-256 that the current list (schemas/published-vN.json, highest N)
// gives for it, and that list to the entries already published. The lists are published files
// too: publishing a schema writes the next list with every entry of the one before, and each list
// is held to its own SHA-256, so a test fails whenever a published file or list changes.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const SCHEMAS = new URL("../../schemas/", import.meta.url);

interface PublishedEntry {
  readonly file: string;
  readonly title: string;
  readonly sha256: string;
}

/**
 * The published files, in publication order, as this test knows them. Append only: a new file is
 * one more line here and in the next schemas/published-vN.json; a line is never edited or removed.
 */
const PUBLISHED: readonly (readonly [file: string, sha256: string])[] = [
  ["ingest-manifest.schema.json", "55951e7d790bdedaa35c7d86820697b7bce94b219431bd512b5629873b93392e"],
  ["ingest-export.schema.json", "965a45bfd5301fe582c5b1d97317643cea85982544b7de45e1c107018460bd11"],
  ["batch.schema.json", "450a1e8c87f2cd9a366456a255ca242e157f34fdd13441d2a15fbe7de0926d30"],
  ["ingest-index.schema.json", "9b6704116c12e62b9be01ee2dcced300f08378cb07d6676ccaa5a62422c55659"],
  ["ingest-policy.schema.json", "365cd2215cf662b8b3eb95156a5215020ae2b8e5162cfbe2e0cdd506e91b7de8"],
  ["ingest-allowlist.schema.json", "a011c109121ce352e36cee225aa08e2ff0797b17d7a6b8c41081c7ba4e2eeda8"],
  ["ingest-manifest-v2.schema.json", "454648ff059caa941da899e80b8b389ef295fb84e979c69a69fbcea38d973960"],
  ["ingest-export-v2.schema.json", "b09f23821deda6ab1873330c254ccdd6909d3c499609621dc3b2a2f8da96a407"],
  ["ingest-manifest-v3.schema.json", "895bbbd0564720ba057e4204aafc15c5ce3812d47ffc7f594a7bebe9e5443855"],
  ["ingest-export-v3.schema.json", "0483210cb66cf33b318eeea5873e87f0b3dc6aabf740b01286df6fe288d888dc"],
];

/** Each list of published files and the SHA-256 it was published with, oldest first. Append only. */
const REGISTRIES: readonly (readonly [file: string, sha256: string])[] = [
  ["published.json", "c8a39964f2d76ddc26c5f1c7a8d006cddac261c7791daae0e9751aa2cbc507ed"],
  ["published-v2.json", "da3b399382ab00b66d6771454264b9fd0121f1529cf263f93d8288a12f4e3a6f"],
];

const entriesOf = (file: string): PublishedEntry[] => (JSON.parse(readFileSync(new URL(file, SCHEMAS), "utf8")) as { files: PublishedEntry[] }).files;
/** The current list: the newest registry. */
const listed = entriesOf(REGISTRIES[REGISTRIES.length - 1]?.[0] as string);
const sha256 = (file: string): string =>
  createHash("sha256")
    .update(readFileSync(new URL(file, SCHEMAS)))
    .digest("hex");

describe("published JSON Schemas are never changed in place", () => {
  it("the current list names exactly the published files, in order, with the hashes they were published with", () => {
    expect(listed.map((e) => [e.file, e.sha256])).toEqual(PUBLISHED.map(([file, hash]) => [file, hash]));
  });

  it("every list is the one published (its hash), each holds every entry of the one before it, and no other list exists", () => {
    const onDisk = readdirSync(SCHEMAS).filter((name) => /^published(-v\d+)?\.json$/.test(name));
    expect(onDisk.sort()).toEqual(REGISTRIES.map(([file]) => file).sort());
    for (const [file, hash] of REGISTRIES) expect(sha256(file), `schemas/${file} changed in place: write the next list instead`).toBe(hash);
    for (let i = 1; i < REGISTRIES.length; i++) {
      const before = entriesOf(REGISTRIES[i - 1]?.[0] as string);
      expect(entriesOf(REGISTRIES[i]?.[0] as string).slice(0, before.length)).toEqual(before);
    }
  });

  it("every file under schemas/ is listed, and its bytes are the listed hash", () => {
    const onDisk = readdirSync(SCHEMAS).filter((name) => name.endsWith(".schema.json"));
    expect(onDisk.sort()).toEqual(listed.map((e) => e.file).sort());
    for (const entry of listed) expect(sha256(entry.file), `schemas/${entry.file} changed in place: publish a new file and name instead`).toBe(entry.sha256);
  });

  it("each listed file names its schema by its title, the names are distinct, and files since v2 carry an $id of that name", () => {
    const titles = listed.map((entry) => {
      const schema = JSON.parse(readFileSync(new URL(entry.file, SCHEMAS), "utf8")) as { title: string; $id?: string };
      expect(schema.title).toBe(entry.title);
      if (schema.$id !== undefined) expect(schema.$id).toBe(`urn:little-canary:${entry.title}`);
      return schema.title;
    });
    expect(new Set(titles).size).toBe(titles.length);
    for (const file of ["ingest-manifest-v2.schema.json", "ingest-export-v2.schema.json"]) {
      expect((JSON.parse(readFileSync(new URL(file, SCHEMAS), "utf8")) as { $id?: string }).$id).toBeDefined();
    }
  });
});
