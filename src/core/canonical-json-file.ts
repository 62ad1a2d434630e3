// The fast read of a document file laid out as little-canary writes it: canonical JSON whose one
// streamed array (`records`) is split out element by element. It yields exactly the events and
// the end that readStrictJsonFile (the strict grammar) would yield for the same bytes, or throws
// NotCanonicalLayout, and the caller then reads the file with readStrictJsonFile, which reports
// exactly what is wrong. So a caller cannot tell the readers apart by what they return, except
// that the fast one also gives each element's bytes (proved `JSON.stringify` of its value, so a
// caller may hash them instead of serializing again); it only costs less for the bytes it accepts.
//
// How: canonical-split.ts cuts the bytes into the head (up to the array's `[`), the elements and
// the tail (from its `]`) without parsing them. The frame (head + tail, a few kilobytes) goes
// through the strict grammar itself, which builds the members and emits the array's events; it
// must then serialize canonically to the same bytes. Each element must pass canonicalValue
// (canonical-value.ts). The whole file is then the canonical serialization of the value the
// events describe, hashed once as it is read.
import { createHash } from "node:crypto";
import { isUtf8 } from "node:buffer";
import { assertCanonicalValue, canonicalObjectFrame } from "./canonical.js";
import { CanonicalSplitter, NotCanonicalLayout, type SplitPieceKind } from "./canonical-split.js";
import { canonicalValue, NOT_CANONICAL, stringLeavingRead } from "./canonical-value.js";
import {
  StrictStreamError,
  MAX_NESTING_DEPTH,
  StrictJsonParser,
  type GrammarOptions,
  type Shape,
  type StreamBudget,
  type StrictStreamEvent,
} from "./parse-line.js";
import { isPlainObject } from "./guards.js";
import { readFileChunks, type FileReadOptions, type StrictFileEnd } from "./strict-json-stream.js";

export { NotCanonicalLayout };

/** Most bytes of a document's frame read fast (ours are a few kilobytes); a larger one is read strictly. */
const MAX_FRAME_BYTES = 1 << 20;
/**
 * Most bytes of one element read fast: an element is held as bytes, text, value and its
 * re-serialization at once, so this bounds memory (a larger record is read strictly).
 */
const MAX_ELEMENT_BYTES = 8 << 20;
/** Deepest nesting read fast (ours need fewer than 10 levels); deeper documents are read strictly. */
const MAX_FAST_DEPTH = 32;
/** Default size of one read: large reads cost fewer trips through the thread pool. */
const DEFAULT_CHUNK_BYTES = 1 << 18;

/**
 * Which elements this reader checks, when several threads read the same file and each checks its
 * share (verify/pair-share.ts): the rest are split out and hashed but neither parsed nor yielded.
 * `owns` is asked for every element in order as it is split; `accepts` later sees the value and
 * bytes of an owned one, when it is parsed. Either may throw NotCanonicalLayout.
 */
export interface ElementShare {
  owns(bytes: Buffer, position: number): boolean;
  accepts(value: unknown, bytes: Buffer): boolean;
  /**
   * Hears of the array's start and end and of the file's end (without its value), in order with
   * `owns`: a share that hands the others' elements to another thread (verify/share-feed.ts)
   * hands these on too.
   */
  frame?(event: FrameEvent): void;
  /** A chunk read was split: what `owns` was shown of it may be handed on now. */
  split?(): void;
}

/** What ElementShare.frame hears: the array's start and end, and the file's end without its value. */
export type FrameEvent = Extract<StrictStreamEvent, { type: "array_start" | "array_end" }> | StrictFileEnd;

/** The options of readCanonicalJsonFile that say how one element is read. */
export type CanonicalElementOptions = GrammarOptions & { readonly share?: ElementShare; readonly leaveString?: string };

/** The streamed array's key, its elements' shape, the depth read fast and each element's budget. */
function streamedArray(options: GrammarOptions): { key: string; elementShape: Shape; maxDepth: number; element: StreamBudget } {
  const streamed = [...(options.stream ?? new Map())];
  if (streamed.length !== 1) throw new NotCanonicalLayout("one streamed array is read fast");
  const [key, elementShape] = streamed[0] as [string, Shape];
  const maxDepth = Math.min(options.maxDepth ?? MAX_NESTING_DEPTH, MAX_FAST_DEPTH);
  const element = options.element ?? { maxValues: Number.POSITIVE_INFINITY, maxChars: Number.POSITIVE_INFINITY };
  return { key, elementShape, maxDepth, element };
}

/**
 * How readCanonicalJsonFile reads one element split out of the file: the element event for its
 * position and bytes (which the event keeps), or NotCanonicalLayout. Exported for a thread that
 * is handed elements another one split (verify/share-feed.ts): it reads them exactly so.
 */
export function canonicalElementReader(options: CanonicalElementOptions): (index: number, bytes: Buffer) => StrictStreamEvent {
  const { key, elementShape, maxDepth, element } = streamedArray(options);
  // The element sits two levels below the root (the root object, then the array).
  const limits = { maxValues: element.maxValues, maxDepth: maxDepth - 2 };
  const leave = options.leaveString === undefined ? null : stringLeavingRead(options.leaveString);
  const share = options.share;
  return (index, bytes) => {
    const read = leave === null ? { value: canonicalValue(bytes, elementShape, limits), left: null } : leave(bytes, elementShape, limits);
    if (read === NOT_CANONICAL || read.value === NOT_CANONICAL || (share !== undefined && !share.accepts(read.value, bytes))) {
      throw new NotCanonicalLayout("an element is not canonical");
    }
    const event = { type: "element", key, index, value: read.value, bytes } as const;
    return read.left === null ? event : { ...event, left: read.left };
  };
}

/**
 * An element split out and owned but not parsed (readCanonicalJsonFile with `deferElements`): its
 * bytes, valid until the reader is pulled again, and `parse`, which makes of them the element event
 * the reader would have yielded (or throws NotCanonicalLayout) and must be called before that.
 */
export interface DeferredElement {
  readonly type: "deferred";
  readonly index: number;
  readonly bytes: Buffer;
  parse(): StrictStreamEvent;
}

/** An element split out and owned, parsed only when it is yielded. */
interface SplitElement {
  readonly type: "split";
  readonly index: number;
  readonly bytes: Buffer;
}

/**
 * Walks a canonical document file: the events of readStrictJsonFile with the same options (which
 * must stream exactly one key), then its `end`. Throws NotCanonicalLayout when the bytes are not
 * laid out canonically (or the file cannot be read): read it with readStrictJsonFile then.
 * `leaveString`: an element whose last member is a long string under this key, written with no
 * escape, holds `""` there and its event gives the string as bytes (`left`, StringLeftAsBytes).
 * `deferElements`: each element comes unparsed (DeferredElement), for a caller that may read it
 * another way first. `hash: false`: the file is not hashed, and its end's `sha256` is null.
 */
export async function* readCanonicalJsonFile(
  path: string,
  options: CanonicalElementOptions & FileReadOptions & { readonly deferElements?: boolean; readonly hash?: boolean },
): AsyncGenerator<StrictStreamEvent | DeferredElement | StrictFileEnd, void, void> {
  const { key, maxDepth, element } = streamedArray(options);
  const parseElement = canonicalElementReader(options);
  const splitter = new CanonicalSplitter({
    key,
    maxFrameBytes: MAX_FRAME_BYTES,
    // Within the bytes limit, an element's characters and tokens are within the grammar's limits.
    maxElementBytes: Math.min(MAX_ELEMENT_BYTES, element.maxChars, options.maxTokenBytes ?? Number.POSITIVE_INFINITY),
    maxDepth,
  });
  // The frame through the strict grammar: the array's events, then the rest, which must be canonical.
  const frame = new StrictJsonParser(options);
  let head = "";
  // A file whose hash nobody reads is not hashed (`hash: false`): its end says null.
  const hash = options.hash === false ? null : createHash("sha256");
  const share = options.share;
  let bytes = 0;
  let count = 0;
  // A chunk's elements wait as bytes (views of the splitter's buffer, intact until the next feed,
  // which comes only after they were all yielded) and each is parsed as it is yielded: parsed at
  // once, a chunk's hundred records would all be alive at each young-generation collection,
  // which then took about twice as long (the collector's cost is what is alive, not what died).
  let pending: Array<StrictStreamEvent | SplitElement> = [];
  const parsed = (split: SplitElement): StrictStreamEvent => parseElement(split.index, split.bytes);
  const outgoing = (split: SplitElement): StrictStreamEvent | DeferredElement =>
    options.deferElements === true ? { type: "deferred", index: split.index, bytes: split.bytes, parse: () => parsed(split) } : parsed(split);
  const sink = (kind: SplitPieceKind, piece: Buffer): void => {
    if (kind === "element") {
      const position = count++;
      if (share === undefined || share.owns(piece, position)) pending.push({ type: "split", index: position, bytes: piece });
      return;
    }
    if (!isUtf8(piece)) throw new NotCanonicalLayout("the frame is not UTF-8");
    try {
      frame.feed(piece, kind === "tail");
    } catch (error) {
      throw error instanceof StrictStreamError ? new NotCanonicalLayout("the frame is not strict JSON") : error;
    }
    const events = frame.takeEvents();
    if (events.length !== 1 || events[0]?.type !== (kind === "head" ? "array_start" : "array_end")) {
      throw new NotCanonicalLayout(kind === "head" ? "the array is not streamed" : "the array did not end");
    }
    if (kind === "head") {
      head = piece.toString("utf8");
      share?.frame?.(events[0] as FrameEvent);
      pending.push(...events);
      return;
    }
    // The rest serializes canonically around the array to exactly the head and the tail read.
    const rest = frame.value;
    if (!isPlainObject(rest) || frame.loneSurrogate) throw new NotCanonicalLayout("the frame has no canonical form");
    try {
      assertCanonicalValue(rest);
    } catch {
      throw new NotCanonicalLayout("the frame has no canonical form");
    }
    const { prefix, suffix } = canonicalObjectFrame(rest, key);
    if (prefix !== head || suffix !== piece.toString("utf8")) throw new NotCanonicalLayout("the frame is not canonical");
    const end = { type: "array_end", key, count } as const;
    share?.frame?.(end);
    pending.push(end);
  };
  try {
    for await (const chunk of readFileChunks(path, options.chunkBytes ?? DEFAULT_CHUNK_BYTES)) {
      hash?.update(chunk);
      options.onChunk?.(chunk.byteLength);
      bytes += chunk.byteLength;
      splitter.feed(chunk, sink);
      share?.split?.();
      const events = pending;
      pending = [];
      for (const event of events) yield event.type === "split" ? outgoing(event) : event;
    }
    splitter.end(sink);
    for (const event of pending) yield event.type === "split" ? outgoing(event) : event;
  } catch (error) {
    if (error instanceof NotCanonicalLayout) throw error;
    // A read error, or anything else: the strict reader reads the file again and says what it is.
    throw new NotCanonicalLayout("the file could not be read fast");
  }
  // splitter.end handed the tail over, so the frame was checked whole.
  const end = { type: "end", value: frame.value, streamed: [key], loneSurrogate: false, bytes, sha256: hash === null ? null : hash.digest("hex") } as const;
  share?.frame?.({ ...end, value: null });
  yield end;
}
