// The id digests verify recounts `duplicate_ids` from, in bounded memory at any manifest size. A
// record repeats an earlier record's id when its digest was seen before, so the count is the
// digests added less the distinct ones, whatever order they came in (which also lets two threads
// tally apart and add up). Up to MAX_IN_MEMORY distinct digests are kept in memory, as bytes in one
// typed array (DigestSet); past that every digest goes to one of BUCKETS files on disk, and the
// distinct ones are counted bucket by bucket at the end, one bucket in memory at a time. Both the
// slot in memory and the bucket on disk come from one keyed hash (simple tabulation over a table
// drawn from a random key per verification), so a hostile manifest, which never sees the table,
// can neither pile its digests into one bucket nor make the table probe long runs.
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errnoCode } from "../core/errors.js";
import { isSha256Hex, sha256Hex } from "../core/hash.js";

/**
 * Distinct digests kept in memory before they go to disk: 131,072 in a table of 262,144 slots of
 * KEY_BYTES and their hashes (9.7 MB per thread at most, outside V8's heap, so the collector neither scans nor
 * raises its high-water mark for them, as it did for a Set of strings). A pair of 100,000 records
 * on two threads is recounted without touching the disk, even once one thread holds both shares'.
 */
const MAX_IN_MEMORY = 1 << 17;
/** Buckets on disk: at 10^8 distinct digests, about 400,000 (some 39 MB as a DigestSet) to count at once. */
const BUCKETS = 256;
/** Bytes of one bucket's buffer before it is appended to its file (512 digests). */
const BUCKET_BUFFER_BYTES = 512 * 33;
/** Bytes of one digest as kept: a tag, then 32 bytes. */
const KEY_BYTES = 33;
/** Slots a DigestSet starts with; it doubles whenever it would be more than half full. */
const FIRST_SLOTS = 1 << 12;

/** What a tally holds, to be absorbed by another (posted between threads). */
export interface IdDigestState {
  readonly added: number;
  /** Why its digests could not be kept on disk (see IdDigestTally.failure). */
  readonly failure: string | null;
  /** The distinct digests as kept (KEY_BYTES each, one after another), while they are all in memory. */
  readonly memory: Uint8Array | null;
  /** The directories of its bucket files (its own, once it spilled, and those it absorbed); empty while all are in memory. */
  readonly dirs: readonly string[];
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
 * Writes digest `digest` as a kept key into `into` (KEY_BYTES): `h` and a hex SHA-256's bytes, or
 * `s` and the SHA-256 of any other string (the tags keep the two kinds apart, as their texts are).
 */
function writeKey(digest: string, into: Buffer): void {
  if (isSha256Hex(digest)) {
    into[0] = TAG_HEX;
    into.write(digest, 1, 32, "hex");
  } else {
    into[0] = TAG_STRING;
    into.write(sha256Hex(digest), 1, 32, "hex");
  }
}

const TAG_HEX = 0x68;
const TAG_STRING = 0x73;

/**
 * The keyed hash of the key at `at` in `bytes`: the exclusive-or of one random 32-bit table entry
 * for each (position, byte value) of its KEY_BYTES (simple tabulation, which spreads any fixed set
 * of keys about as evenly as a random function; the keys are chosen before the table is drawn, as
 * a manifest is written before it is verified).
 */
function keyHash(table: Uint32Array, bytes: Uint8Array, at: number): number {
  let hash = 0;
  for (let i = 0; i < KEY_BYTES; i++) hash ^= table[(i << 8) | (bytes[at + i] as number)] as number;
  return hash >>> 0;
}

/**
 * A set of keys of KEY_BYTES held in one typed array: open addressing with linear probing, the
 * slot chosen by keyHash, each slot's hash kept beside it (compared before the bytes, and reused
 * when the table doubles). A slot whose first byte is 0 is empty (every key starts with a tag).
 */
class DigestSet {
  #slots: Uint8Array;
  #hashes: Uint32Array;
  #mask: number;
  #size = 0;

  constructor(private readonly table: Uint32Array) {
    this.#slots = new Uint8Array(FIRST_SLOTS * KEY_BYTES);
    this.#hashes = new Uint32Array(FIRST_SLOTS);
    this.#mask = FIRST_SLOTS - 1;
  }

  /** Distinct keys held. */
  get size(): number {
    return this.#size;
  }

  /**
   * Adds the key at `at` in `bytes`: true when it was not held yet, false when it was, null when
   * it was not but `limit` keys are held already (it is then not added). The table doubles only
   * for a key it adds, so a repeat never grows it: at most `limit` keys take 2 × `limit` slots.
   */
  add(bytes: Uint8Array, at: number, limit = Number.POSITIVE_INFINITY): boolean | null {
    const hash = keyHash(this.table, bytes, at);
    let slot = this.#slotOf(hash, bytes, at);
    if (slot < 0) return false;
    if (this.#size >= limit) return null;
    if ((this.#size + 1) * 2 > this.#mask + 1) {
      this.#grow();
      slot = this.#slotOf(hash, bytes, at);
    }
    const start = slot * KEY_BYTES;
    for (let i = 0; i < KEY_BYTES; i++) this.#slots[start + i] = bytes[at + i] as number;
    this.#hashes[slot] = hash;
    this.#size++;
    return true;
  }

  /** Whether the key at `at` in `bytes` is held. */
  has(bytes: Uint8Array, at: number): boolean {
    return this.#slotOf(keyHash(this.table, bytes, at), bytes, at) < 0;
  }

  /** The empty slot the key would take, or -1 when it is held. */
  #slotOf(hash: number, bytes: Uint8Array, at: number): number {
    const slots = this.#slots;
    for (let slot = hash & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const start = slot * KEY_BYTES;
      if (slots[start] === 0) return slot;
      if (this.#hashes[slot] === hash && sameKey(slots, start, bytes, at)) return -1;
    }
  }

  /** The keys held, one after another. */
  keys(): Uint8Array {
    const out = new Uint8Array(this.#size * KEY_BYTES);
    let filled = 0;
    const slots = this.#slots;
    for (let slot = 0; slot < slots.length; slot += KEY_BYTES) {
      if (slots[slot] === 0) continue;
      for (let i = 0; i < KEY_BYTES; i++) out[filled + i] = slots[slot + i] as number;
      filled += KEY_BYTES;
    }
    return out;
  }

  /** Doubles the slots, each key moved to the slot its kept hash gives. */
  #grow(): void {
    const [oldSlots, oldHashes] = [this.#slots, this.#hashes];
    const mask = this.#mask * 2 + 1;
    const slots = new Uint8Array((mask + 1) * KEY_BYTES);
    const hashes = new Uint32Array(mask + 1);
    for (let old = 0; old < oldHashes.length; old++) {
      const from = old * KEY_BYTES;
      if (oldSlots[from] === 0) continue;
      const hash = oldHashes[old] as number;
      let slot = hash & mask;
      while (slots[slot * KEY_BYTES] !== 0) slot = (slot + 1) & mask;
      // A byte loop, not a view and a copy per key: a view per key was most of a rebuild's time.
      const to = slot * KEY_BYTES;
      for (let i = 0; i < KEY_BYTES; i++) slots[to + i] = oldSlots[from + i] as number;
      hashes[slot] = hash;
    }
    this.#slots = slots;
    this.#hashes = hashes;
    this.#mask = mask;
  }
}

/** Whether the KEY_BYTES at `a` in `left` and at `b` in `right` are the same. */
function sameKey(left: Uint8Array, a: number, right: Uint8Array, b: number): boolean {
  for (let i = 0; i < KEY_BYTES; i++) if (left[a + i] !== right[b + i]) return false;
  return true;
}

/** Counts id digests and how many repeat an earlier one (see the module header). */
export class IdDigestTally {
  #added = 0;
  #failure: string | null = null;
  #memory: DigestSet | null;
  #dir: string | null = null;
  /** Other tallies' bucket directories, read with this one's at the end and removed by `close`. */
  readonly #absorbedDirs: string[] = [];
  #buffers: Buffer[] = [];
  #fill: number[] = [];
  readonly #maxInMemory: number;
  readonly #table: Uint32Array;
  readonly #parent: string;
  /** The key being added. */
  readonly #key = Buffer.alloc(KEY_BYTES);
  /**
   * Another tally's distinct digests, absorbed by counting rather than adding (see `absorb`): how
   * many of them this one does not hold, and the digests themselves, added only if this tally is
   * used again.
   */
  #counted: { readonly keys: Uint8Array; readonly fresh: number } | null = null;

  constructor(options: IdDigestOptions = {}) {
    this.#maxInMemory = options.maxInMemory ?? MAX_IN_MEMORY;
    this.#table = hashTable(options.key ?? newBucketKey());
    this.#parent = options.parent ?? tmpdir();
    this.#memory = new DigestSet(this.#table);
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
    this.#addCounted();
    this.#added++;
    writeKey(digest, this.#key);
    this.#guard(() => this.#keep(this.#key, 0));
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

  /** Keeps the key at `at` in `bytes`. */
  #keep(bytes: Uint8Array, at: number): void {
    if (this.#memory !== null) {
      // A new key past the most held: all go to disk, this one with them.
      if (this.#memory.add(bytes, at, this.#maxInMemory) !== null) return;
      this.#spill();
    }
    const bucket = keyHash(this.#table, bytes, at) >>> 24;
    const buffer = this.#buffers[bucket] as Buffer;
    if ((this.#fill[bucket] as number) + KEY_BYTES > buffer.length) this.#flush(bucket);
    buffer.set(bytes.subarray(at, at + KEY_BYTES), this.#fill[bucket] as number);
    this.#fill[bucket] = (this.#fill[bucket] as number) + KEY_BYTES;
  }

  /** Moves the digests held in memory to bucket files; every later one goes there too. */
  #spill(): void {
    const held = this.#memory?.keys() ?? new Uint8Array(0);
    this.#dir = mkdtempSync(join(this.#parent, "lc-verify-ids-"));
    this.#buffers = Array.from({ length: BUCKETS }, () => Buffer.allocUnsafe(BUCKET_BUFFER_BYTES));
    this.#fill = new Array<number>(BUCKETS).fill(0);
    this.#memory = null;
    for (let at = 0; at < held.length; at += KEY_BYTES) this.#keep(held, at);
  }

  #flush(bucket: number): void {
    const fill = this.#fill[bucket] as number;
    if (fill === 0 || this.#dir === null) return;
    appendFileSync(join(this.#dir, String(bucket)), (this.#buffers[bucket] as Buffer).subarray(0, fill));
    this.#fill[bucket] = 0;
  }

  /** What this tally holds, for another's `absorb` (its files stay until that one's `close`). */
  state(): IdDigestState {
    this.#addCounted();
    this.#guard(() => {
      for (let bucket = 0; bucket < this.#fill.length; bucket++) this.#flush(bucket);
    });
    const dirs = [this.#dir, ...this.#absorbedDirs].filter((dir): dir is string => dir !== null);
    return { added: this.#added, failure: this.#failure, memory: this.#memory === null ? null : this.#memory.keys(), dirs };
  }

  /** Adds another tally's digests (built with the same key); its files are read and removed with this one's. */
  absorb(other: IdDigestState): void {
    this.#addCounted();
    this.#added += other.added;
    this.#absorbedDirs.push(...other.dirs);
    this.#failure ??= other.failure;
    if (this.#failure !== null) return;
    // Both in memory and within its limit together: the other's digests (distinct among
    // themselves) are looked up here, not added. Adding them rebuilt the table at its largest,
    // a random write per digest, as the last step of a two-thread verification.
    const memory = this.#memory;
    if (other.dirs.length === 0 && other.memory !== null && memory !== null && memory.size + other.memory.length / KEY_BYTES <= this.#maxInMemory) {
      let fresh = 0;
      for (let at = 0; at + KEY_BYTES <= other.memory.length; at += KEY_BYTES) if (!memory.has(other.memory, at)) fresh++;
      this.#counted = { keys: other.memory, fresh };
      return;
    }
    this.#guard(() => {
      if (other.dirs.length > 0 && this.#memory !== null) this.#spill();
      const keys = other.memory ?? new Uint8Array(0);
      for (let at = 0; at + KEY_BYTES <= keys.length; at += KEY_BYTES) this.#keep(keys, at);
    });
  }

  /** Digests added that repeat an earlier one (added less distinct), or null when the tally failed (`failure`). */
  repeats(): number | null {
    if (this.#failure !== null) return null;
    if (this.#memory !== null) return this.#added - this.#memory.size - (this.#counted?.fresh ?? 0);
    const distinct = this.#guard(() => this.#distinctOnDisk());
    return distinct === null ? null : this.#added - distinct;
  }

  #distinctOnDisk(): number {
    for (let bucket = 0; bucket < BUCKETS; bucket++) this.#flush(bucket);
    let distinct = 0;
    const dirs = [this.#dir as string, ...this.#absorbedDirs];
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      const seen = new DigestSet(this.#table);
      for (const dir of dirs)
        readBucket(join(dir, String(bucket)), (bytes) => {
          for (let at = 0; at + KEY_BYTES <= bytes.length; at += KEY_BYTES) seen.add(bytes, at);
        });
      distinct += seen.size;
    }
    return distinct;
  }

  /** Adds the digests an absorb only counted, before this tally takes more or is absorbed itself. */
  #addCounted(): void {
    const counted = this.#counted;
    if (counted === null) return;
    this.#counted = null;
    this.#guard(() => {
      for (let at = 0; at + KEY_BYTES <= counted.keys.length; at += KEY_BYTES) this.#keep(counted.keys, at);
    });
  }

  /** Removes the bucket files, this tally's and those it absorbed. */
  close(): void {
    for (const dir of [this.#dir, ...this.#absorbedDirs]) if (dir !== null) rmSync(dir, { recursive: true, force: true });
    this.#dir = null;
    this.#absorbedDirs.length = 0;
  }
}

/**
 * The keyed hash's table: a random 32-bit entry for each (position, byte value) of a kept key,
 * drawn from the key (SHAKE256 stretches it), so tallies built with the same key hash alike.
 */
function hashTable(key: Uint8Array): Uint32Array {
  const bytes = createHash("shake256", { outputLength: KEY_BYTES * 256 * 4 })
    .update(key)
    .digest();
  // Copied into a buffer of its own: the digest's may not be aligned for 32-bit reads.
  return new Uint32Array(new Uint8Array(bytes).buffer);
}

/** Bytes of a bucket file read at once: a whole number of keys. */
const BUCKET_READ_BYTES = 32_768 * KEY_BYTES;

/**
 * Hands a bucket file's keys to `each`, a piece at a time: a file holds every digest that went to
 * its bucket, repeats too (one id repeated ten million times fills one file), so only the distinct
 * ones, not the file, are held. A bucket no digest went to has no file.
 */
function readBucket(path: string, each: (bytes: Buffer) => void): void {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  try {
    const buffer = Buffer.allocUnsafe(BUCKET_READ_BYTES);
    for (;;) {
      let filled = 0;
      while (filled < buffer.length) {
        const read = readSync(fd, buffer, filled, buffer.length - filled, null);
        if (read === 0) break;
        filled += read;
      }
      if (filled > 0) each(buffer.subarray(0, filled - (filled % KEY_BYTES)));
      if (filled < buffer.length) return;
    }
  } finally {
    closeSync(fd);
  }
}
