// How the thread that reads a pair hands the worker its share (src/verify/share-feed.ts,
// pair-share.ts): over a real message channel, the worker's side gives exactly the elements and
// frames handed on, in order; buffers come back and are used again; a new block goes to the
// worker only while little waits for it; too much waiting stops the feed once, and nothing more
// is handed on; and the blocks decided for the worker are the ones its share owns when this
// thread checks them itself afterwards.
import { MessageChannel } from "node:worker_threads";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { DeferredElement } from "../../src/core/canonical-json-file.js";
import type { StrictStreamEvent } from "../../src/core/parse-line.js";
import { manifestShare, newClaims, type PairShare } from "../../src/verify/pair-share.js";
import { FedDocuments, ShareFeed, type FeedMessage } from "../../src/verify/share-feed.js";

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const channel of channels.splice(0)) {
    channel.port1.close();
    channel.port2.close();
  }
});

/** A feed posting over a message channel to a FedDocuments, which gives each buffer back over it. */
function connected(limits = { window: 1 << 20, most: 1 << 24 }) {
  const channel = new MessageChannel();
  channels.push(channel);
  const stops: number[] = [];
  const feed = new ShareFeed(channel.port1, 1, limits, () => stops.push(1));
  const returned: number[] = [];
  const fed = new FedDocuments((buffer) => channel.port2.postMessage(buffer, [buffer]));
  channel.port2.on("message", (message: FeedMessage) => fed.receive(message));
  channel.port1.on("message", (buffer: ArrayBuffer) => {
    returned.push(buffer.byteLength);
    feed.taken(buffer);
  });
  return { feed, fed, stops, returned };
}

/** An element "event" that says what it was read from, instead of parsing. */
const echo = (index: number, bytes: Buffer): StrictStreamEvent => ({ type: "element", key: "records", index, value: bytes.toString("latin1") });

/** Pulls `doc`'s events until its end, each element parsed before the next is asked for. */
async function drain(fed: FedDocuments, doc: "manifest" | "export"): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const event of fed.events(doc, echo)) {
    if (event.type === "deferred") {
      const parsed = (event as DeferredElement).parse();
      seen.push([parsed.type === "element" ? parsed.index : null, parsed.type === "element" ? parsed.value : null]);
    } else seen.push(event.type);
  }
  return seen;
}

/** Waits until `done` holds: messages between ports take event-loop turns to arrive. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 5000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
}

const end = (sha256: string) => ({ type: "end", value: null, streamed: ["records"], loneSurrogate: false, bytes: 0, sha256 }) as const;

describe("a share handed to the worker", () => {
  it("arrives element for element, in order, with its frames after the elements before them, each document apart", async () => {
    const { feed, fed } = connected();
    feed.frame("manifest", { type: "array_start", key: "records", members: { a: 1 } });
    feed.element("manifest", 3, Buffer.from("m3"));
    feed.element("export", 7, Buffer.from("e7"));
    feed.element("manifest", 4, Buffer.from("m4 longer"));
    feed.flush("manifest");
    // Elements gathered for the export are sent before its frame.
    feed.frame("export", { type: "array_end", key: "records", count: 8 });
    feed.element("manifest", 9, Buffer.from("m9"));
    feed.frame("manifest", { type: "array_end", key: "records", count: 10 });
    feed.frame("manifest", end("aa"));
    feed.frame("export", end("bb"));
    const [manifest, exported] = await Promise.all([drain(fed, "manifest"), drain(fed, "export")]);
    expect(manifest).toEqual(["array_start", [3, "m3"], [4, "m4 longer"], [9, "m9"], "array_end", "end"]);
    expect(exported).toEqual([[7, "e7"], "array_end", "end"]);
  });

  it("gives each batch's buffer back once read, and the buffers are used again", async () => {
    const { feed, fed, returned } = connected();
    const element = Buffer.alloc(1000, 0x61);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 10; i++) feed.element("manifest", round * 10 + i, element);
      feed.flush("manifest");
    }
    feed.frame("manifest", end("aa"));
    const seen = await drain(fed, "manifest");
    expect(seen).toHaveLength(31);
    await until(() => returned.length === 3);
    expect(returned).toEqual([1 << 18, 1 << 18, 1 << 18]);
    // The next batch is gathered in a buffer that came back: none is made.
    const made = vi.spyOn(Buffer, "allocUnsafeSlow");
    try {
      feed.element("manifest", 30, element);
      feed.flush("manifest");
      expect(made).not.toHaveBeenCalled();
    } finally {
      made.mockRestore();
    }
    // An element larger than a batch's room travels in a buffer of its own size.
    feed.element("export", 0, Buffer.alloc((1 << 18) + 5));
    feed.frame("export", end("bb"));
    expect(await drain(fed, "export")).toEqual([[0, "\u0000".repeat((1 << 18) + 5)], "end"]);
    await until(() => returned.length === 4);
    expect(returned.at(-1)).toBe((1 << 18) + 5);
  });

  it("takes a new block only while less than the window waits, again once buffers came back", async () => {
    const { feed, fed } = connected({ window: 2 << 18, most: 1 << 24 });
    expect(feed.takesBlock()).toBe(true);
    feed.element("manifest", 0, Buffer.from("x"));
    feed.flush("manifest");
    expect(feed.takesBlock()).toBe(true);
    feed.element("manifest", 1, Buffer.from("y"));
    feed.flush("manifest");
    // Two batches' buffers wait: the window is full until the worker reads them.
    expect(feed.takesBlock()).toBe(false);
    feed.frame("manifest", end("aa"));
    await drain(fed, "manifest");
    await until(() => feed.takesBlock());
    expect(feed.takesBlock()).toBe(true);
  });

  it("stops once when more than the most would wait, and hands nothing on after", async () => {
    const { feed, fed, stops } = connected({ window: 1 << 30, most: (1 << 18) + 10 });
    feed.element("manifest", 0, Buffer.from("first"));
    feed.flush("manifest");
    expect(feed.active).toBe(true);
    // A full batch waits unread; the next element would put more than the most in waiting.
    feed.element("manifest", 1, Buffer.alloc(11));
    expect(feed.active).toBe(false);
    expect(stops).toEqual([1]);
    expect(feed.takesBlock()).toBe(false);
    feed.element("manifest", 2, Buffer.from("late"));
    feed.flush("manifest");
    feed.frame("manifest", end("aa"));
    feed.stop();
    expect(stops).toEqual([1]);
    // The worker got the first batch and nothing after it.
    const got: unknown[] = [];
    const events = fed.events("manifest", echo);
    const first = await events.next();
    got.push((first.value as DeferredElement).parse());
    const next = await Promise.race([events.next(), new Promise((resolve) => setTimeout(() => resolve("nothing"), 100))]);
    expect(got).toEqual([{ type: "element", key: "records", index: 0, value: "first" }]);
    expect(next).toBe("nothing");
  });
});

describe("blocks decided by the reading thread", () => {
  it("go to the worker while it takes blocks, are handed on whole, and are the worker's share when checked here afterwards", () => {
    const posted: FeedMessage[] = [];
    let takes = true;
    const feed = new ShareFeed({ postMessage: (message) => posted.push(message) }, 1, { window: 1 << 20, most: 1 << 24 }, () => {});
    // The decision is read from whether the feed takes a block, switched as blocks go by.
    feed.takesBlock = () => takes;
    const claims = newClaims(3000, 2);
    const mine = manifestShare({ part: 0, parts: 2, block: 2, claims, feed } satisfies PairShare);
    const owned: number[] = [];
    for (let position = 0; position < 12; position++) {
      // Blocks of two: taken, taken, kept, kept, taken, kept.
      takes = [true, true, false, false, true, false][Math.floor(position / 2)] as boolean;
      if (mine.owns(Buffer.from(`r${position}`), position)) owned.push(position);
    }
    mine.split?.();
    expect(owned).toEqual([4, 5, 6, 7, 10, 11]);
    const handed = posted.flatMap((m) => (m.kind === "elements" ? m.positions : []));
    expect(handed).toEqual([0, 1, 2, 3, 8, 9]);
    // The worker's share, checked here from the files after a failure, owns exactly those.
    const theirs = manifestShare({ part: 1, parts: 2, block: 2, claims });
    expect(Array.from({ length: 12 }, (_, p) => p).filter((p) => theirs.owns(Buffer.alloc(0), p))).toEqual(handed);
  });
});
