// The id digests verify recounts `duplicate_ids` from, in bounded memory at any manifest size. A
// record repeats an earlier record's id when its digest was seen before, so the count is the
// digests added less the distinct ones, whatever order they came in (which also lets two threads
// tally apart and add up). Up to MAX_IN_MEMORY distinct digests are kept in a Set; past that every
// digest goes to one of BUCKETS files on disk, chosen by a keyed hash (simple tabulation over a
// table drawn from a random key per verification, so a hostile manifest, which never sees the
// table, cannot pile its digests into one bucket), and the distinct ones are counted bucket by
// bucket at the end, one bucket in memory at a time.
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errnoCode } from "../core/errors.js";
import { isSha256Hex, sha256Hex } from "../core/hash.js";

/**
 * Distinct digests kept in memory (about 80 bytes each) before they go to disk. Few: a Set that
 * grows raises the heap's high-water mark by more than its size (on the 300,000-record pair of
 * docs/ingest.md, "Verify memory", 100,000 per thread peaked 40 to 60 MB higher than 1,000).
 */
const MAX_IN_MEMORY = 25_000;
/** Buckets on disk: at 10^8 distinct digests, about 400,000 (some 30 MB as a Set) to count at once. */
const BUCKETS = 256;
/** Bytes of one bucket's buffer before it is appended to its file (512 digests). */
const BUCKET_BUFFER_BYTES = 512 * 33;
/** Bytes of one digest as kept: a tag, then 32 bytes. */
const KEY_BYTES = 33;

/** What a tally holds, to be absorbed by another (posted between threads). */
export interface IdDigestState {
  readonly added: number;
  /** Why its digests could not be kept on disk (see IdDigestTally.failure). */
  readonly failure: string | null;
  /** The distinct digests as kept, while they are all in memory. */
  readonly memory: readonly string[] | null;
  /** The directory of its bucket files, once it spilled. */
  readonly dir: string | null;
}

/** Options of an IdDigestTally (tests use a tiny `maxInMemory`). */
export interface IdDigestOptions {
  readonly maxInMemory?: number;
  /** The bucket hash's key: the same for tallies that will be absorbed into one another. */
  readonly key?: Uint8Array;
  /** Where the bucket directory is made (default the system's temporary directory). */
  readonly parent?: string;
}

/** A new random bucket key, for tallies that will be absorbed into one another. */
export function newBucketKey(): Uint8Array {
  return randomBytes(32);
}

/**
 * A digest as KEY_BYTES latin1 characters: `h` and a hex SHA-256's bytes, or `s` and the SHA-256
 * of any other string (the tags keep the two kinds apart, as their texts are).
 */
function keyOf(digest: string): string {
  return isSha256Hex(digest) ? `h${Buffer.from(digest, "hex").toString("latin1")}` : `s${Buffer.from(sha256Hex(digest), "hex").toString("latin1")}`;
}

/** Counts id digests and how many repeat an earlier one (see the module header). */
export class IdDigestTally {
  #added = 0;
  #failure: string | null = null;
  #memory: Set<string> | null = new Set();
  #dir: string | null = null;
  /** Other tallies' bucket directories, read with this one's at the end and removed by `close`. */
  readonly #absorbedDirs: string[] = [];
  #buffers: Buffer[] = [];
  #fill: number[] = [];
  readonly #maxInMemory: number;
  readonly #table: Uint8Array;
  readonly #parent: string;

  constructor(options: IdDigestOptions = {}) {
    this.#maxInMemory = options.maxInMemory ?? MAX_IN_MEMORY;
    this.#table = bucketTable(options.key ?? newBucketKey());
    this.#parent = options.parent ?? tmpdir();
  }

  /**
   * Why the digests could not be kept on disk (the temporary directory could not be made or
   * written: an errno code such as ENOSPC), once that happened; the count is then unknown.
   */
  get failure(): string | null {
    return this.#failure;
  }

  /** One record's id digest. */
  add(digest: string): void {
    if (this.#failure !== null) return;
    this.#added++;
    this.#guard(() => this.#keep(keyOf(digest)));
  }

  /** Runs a step that may touch the disk; a failure ends the tally (null) instead of the verification. */
  #guard<T>(step: () => T): T | null {
    try {
      return step();
    } catch (error) {
      this.#failure = errnoCode(error) ?? "unwritable";
      return null;
    }
  }

  #keep(key: string): void {
    if (this.#memory !== null) {
      this.#memory.add(key);
      if (this.#memory.size > this.#maxInMemory) this.#spill();
      return;
    }
    const bucket = bucketOf(this.#table, key);
    const buffer = this.#buffers[bucket] as Buffer;
    if ((this.#fill[bucket] as number) + KEY_BYTES > buffer.length) this.#flush(bucket);
    buffer.write(key, this.#fill[bucket] as number, "latin1");
    this.#fill[bucket] = (this.#fill[bucket] as number) + KEY_BYTES;
  }

  /** Moves the digests held in memory to bucket files; every later one goes there too. */
  #spill(): void {
    const held = this.#memory ?? new Set<string>();
    this.#dir = mkdtempSync(join(this.#parent, "lc-verify-ids-"));
    this.#buffers = Array.from({ length: BUCKETS }, () => Buffer.allocUnsafe(BUCKET_BUFFER_BYTES));
    this.#fill = new Array<number>(BUCKETS).fill(0);
    this.#memory = null;
    for (const key of held) this.#keep(key);
  }

  #flush(bucket: number): void {
    const fill = this.#fill[bucket] as number;
    if (fill === 0 || this.#dir === null) return;
    appendFileSync(join(this.#dir, String(bucket)), (this.#buffers[bucket] as Buffer).subarray(0, fill));
    this.#fill[bucket] = 0;
  }

  /** What this tally holds, for another's `absorb` (its files stay until that one's `close`). */
  state(): IdDigestState {
    this.#guard(() => {
      for (let bucket = 0; bucket < this.#fill.length; bucket++) this.#flush(bucket);
    });
    return { added: this.#added, failure: this.#failure, memory: this.#memory === null ? null : [...this.#memory], dir: this.#dir };
  }

  /** Adds another tally's digests (built with the same key); its files are read and removed with this one's. */
  absorb(other: IdDigestState): void {
    this.#added += other.added;
    if (other.dir !== null) this.#absorbedDirs.push(other.dir);
    this.#failure ??= other.failure;
    if (this.#failure !== null) return;
    this.#guard(() => {
      if (other.dir !== null && this.#memory !== null) this.#spill();
      for (const key of other.memory ?? []) this.#keep(key);
    });
  }

  /** Digests added that repeat an earlier one (added less distinct), or null when the tally failed (`failure`). */
  repeats(): number | null {
    if (this.#failure !== null) return null;
    if (this.#memory !== null) return this.#added - this.#memory.size;
    const distinct = this.#guard(() => this.#distinctOnDisk());
    return distinct === null ? null : this.#added - distinct;
  }

  #distinctOnDisk(): number {
    for (let bucket = 0; bucket < BUCKETS; bucket++) this.#flush(bucket);
    let distinct = 0;
    const dirs = [this.#dir as string, ...this.#absorbedDirs];
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      const seen = new Set<string>();
      for (const dir of dirs) {
        const bytes = readBucket(join(dir, String(bucket)));
        for (let at = 0; at + KEY_BYTES <= bytes.length; at += KEY_BYTES) seen.add(bytes.toString("latin1", at, at + KEY_BYTES));
      }
      distinct += seen.size;
    }
    return distinct;
  }

  /** Removes the bucket files, this tally's and those it absorbed. */
  close(): void {
    for (const dir of [this.#dir, ...this.#absorbedDirs]) if (dir !== null) rmSync(dir, { recursive: true, force: true });
    this.#dir = null;
    this.#absorbedDirs.length = 0;
  }
}

/**
 * The bucket hash's table: one random byte for each (position, byte value) of a kept digest, drawn
 * from the key (SHAKE256 stretches it), so tallies built with the same key bucket alike.
 */
function bucketTable(key: Uint8Array): Uint8Array {
  return createHash("shake256", { outputLength: KEY_BYTES * 256 })
    .update(key)
    .digest();
}

/**
 * A kept digest's bucket: the exclusive-or of its bytes' table entries (simple tabulation hashing,
 * which spreads any fixed set of keys about as evenly as a random function; the keys are chosen
 * before the table is drawn, as a manifest is written before it is verified).
 */
function bucketOf(table: Uint8Array, key: string): number {
  let bucket = 0;
  for (let at = 0; at < KEY_BYTES; at++) bucket ^= table[(at << 8) | (key.charCodeAt(at) & 0xff)] as number;
  return bucket;
}

/** A bucket file's bytes; a bucket no digest went to has no file. */
function readBucket(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return Buffer.alloc(0);
    throw error;
  }
}
