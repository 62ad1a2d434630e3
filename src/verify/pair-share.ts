// How a pair read fast is checked on two threads: one thread reads both files whole (splitting,
// hashing and checking the frame are cheap) and hands a share of the records, blocks of record
// indices, to a worker (share-feed.ts); each thread parses and checks only its own share, so the
// costly part is split across cores. A manifest record belongs
// to the share of its position; an export record to the share of the index it names, read from
// its first bytes without parsing (a canonical export record begins `{"id":…,"index":N,`), so the
// manifest record it is checked against is read by the same thread. The share that owns an export
// record parses it and must find exactly that index. Anything else (an export record that does
// not begin so, indices that do not strictly increase) is not the layout ingest writes: the pair
// is then read by the exact path, which says what is wrong.
//
// Who checks a block is decided by the thread that reads the files, as it meets the block in
// either file: the worker takes it while little of what it was handed waits unread
// (share-feed.ts), else the reading thread keeps it. The decision is written to a claim list, so
// that when the worker fails and both files were hashed (stream-pair.ts), the reading thread
// checks the worker's blocks itself afterwards, reading the files again (the second share then
// claims, by an atomic compare-and-swap, any block nobody decided). Without a claim list (the second share checked after the first, on one
// thread) blocks alternate.
import { NotCanonicalLayout, type ElementShare } from "../core/canonical-json-file.js";
import { isObj, own } from "./_values.js";
import type { FedDocument, ShareFeed } from "./share-feed.js";

/** One thread's part of a pair: `part` of `parts`, records dealt out `block` indices at a time. */
export interface PairShare {
  readonly part: number;
  readonly parts: number;
  readonly block: number;
  /**
   * Who claimed each block (0 none, else its part + 1), shared by the threads; a block past its
   * end, or every block without one, goes to its turn (`block % parts`).
   */
  readonly claims?: Int8Array | null;
  /**
   * The reading thread's hand to the worker (share-feed.ts): it decides each block met first and
   * hands on the worker's elements and the frames. Absent on the worker and on one thread.
   */
  readonly feed?: ShareFeed | null;
}

/** Records dealt out at a time: large enough that each thread reads long runs, small for balance. */
export const SHARE_BLOCK = 256;

/** Most blocks a claim list covers (1 MiB of shared memory): 2^28 records at SHARE_BLOCK. */
const MAX_CLAIMED_BLOCKS = 1 << 20;

/**
 * A claim list shared by the threads checking a pair whose manifest has `manifestBytes`: room for
 * every block of the records it can hold (each takes at least three bytes, `{}` and a comma).
 */
export function newClaims(manifestBytes: number, block: number): Int8Array {
  const blocks = Math.min(MAX_CLAIMED_BLOCKS, Math.ceil(manifestBytes / 3 / block) + 1);
  return new Int8Array(new SharedArrayBuffer(blocks));
}

function owner(index: number, share: PairShare): number {
  const block = Math.floor(index / share.block);
  const claims = share.claims;
  if (claims == null || block >= claims.length) return block % share.parts;
  const feed = share.feed;
  if (feed == null) {
    const before = Atomics.compareExchange(claims, block, 0, share.part + 1);
    return before === 0 ? share.part : before - 1;
  }
  const decided = Atomics.load(claims, block);
  if (decided !== 0) return decided - 1;
  const who = feed.takesBlock() ? feed.part : share.part;
  Atomics.store(claims, block, who + 1);
  return who;
}

/** Whether `share` checks the element at `index`; one it hands to the worker is handed on. */
function ownsElement(share: PairShare, doc: FedDocument, index: number, bytes: Buffer, position: number): boolean {
  if (owner(index, share) === share.part) return true;
  share.feed?.element(doc, position, bytes);
  return false;
}

/** The frame and chunk hooks of an ElementShare handing on to `feed`. */
function feeding(feed: ShareFeed | null | undefined, doc: FedDocument): Pick<ElementShare, "frame" | "split"> {
  return feed == null ? {} : { frame: (event) => feed.frame(doc, event), split: () => feed.flush(doc) };
}

/** The manifest's elements this share checks: those whose position falls in its blocks. */
export function manifestShare(share: PairShare): ElementShare {
  return { owns: (bytes, position) => ownsElement(share, "manifest", position, bytes, position), accepts: () => true, ...feeding(share.feed, "manifest") };
}

/** The export's elements this share checks: those whose index falls in its blocks (see the header). */
export function exportShare(share: PairShare): ElementShare {
  let last = -1;
  return {
    owns(bytes, position) {
      const index = exportIndexHint(bytes);
      if (index === null || index <= last) throw new NotCanonicalLayout("export records do not name increasing indices first");
      last = index;
      return ownsElement(share, "export", index, bytes, position);
    },
    accepts: (value, bytes) => isObj(value) && own(value, "index") === exportIndexHint(bytes),
    ...feeding(share.feed, "export"),
  };
}

const ID_KEY = Buffer.from('{"id":', "latin1");
const NULL = Buffer.from("null", "latin1");
const INDEX_KEY = Buffer.from(',"index":', "latin1");
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The index a canonical export record names (`{"id":null|"…","index":N,`), or null when it does not begin so. */
export function exportIndexHint(bytes: Buffer): number | null {
  if (!startsWith(bytes, ID_KEY, 0)) return null;
  let at = ID_KEY.length;
  if (startsWith(bytes, NULL, at)) {
    at += NULL.length;
  } else if (bytes[at] === QUOTE) {
    // The string ends at the first quote not escaped: one after an even run of backslashes.
    const open = at;
    for (at = bytes.indexOf(QUOTE, open + 1); at !== -1; at = bytes.indexOf(QUOTE, at + 1)) {
      let run = 0;
      while (bytes[at - 1 - run] === BACKSLASH) run++;
      if (run % 2 === 0) break;
    }
    if (at === -1) return null;
    at++;
  } else {
    return null;
  }
  if (!startsWith(bytes, INDEX_KEY, at)) return null;
  at += INDEX_KEY.length;
  const first = at;
  let index = 0;
  for (; at < bytes.length && (bytes[at] as number) >= 0x30 && (bytes[at] as number) <= 0x39; at++) index = index * 10 + ((bytes[at] as number) - 0x30);
  const digits = at - first;
  // Canonical integers: no leading zero, and within what a double holds exactly.
  if (digits === 0 || digits > 15 || (digits > 1 && bytes[first] === 0x30) || bytes[at] !== 0x2c) return null;
  return index;
}

function startsWith(bytes: Buffer, prefix: Buffer, at: number): boolean {
  return at + prefix.length <= bytes.length && bytes.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;
}
