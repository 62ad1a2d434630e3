// One pass over a text that finds which of many short ASCII literals it contains, ASCII letters
// compared without case (an Aho–Corasick automaton, every transition worked out ahead).
//
// The rule pre-check (rule-triggers.ts) used one alternation expression per rule over the
// lower-cased text: on prose holding none of the literals each expression scanned the whole text,
// and those scans cost more than half of the pre-check. Here every rule's literals share one
// automaton, and the text is read once, without a lower-cased copy.

/** Only ASCII characters can be part of a literal; any other character returns to the start state. */
const ASCII = 128;

/** An ASCII code with upper-case letters read as lower-case. */
const FOLD = Uint8Array.from({ length: ASCII }, (_, code) => (code >= 65 && code <= 90 ? code + 32 : code));

/**
 * Groups of ASCII literals, and for a text, which groups have a literal in it. A group is
 * typically one rule's literals; the same literal may belong to several groups.
 */
export class LiteralScan {
  /**
   * The column of each ASCII code: one per character the literals hold (case-folded), 0 for the
   * rest, which no literal holds and which therefore always lead back to the start state. A table
   * as wide as the literals' characters, not all of ASCII, is built in a fraction of the time.
   */
  readonly #column: Uint8Array;
  readonly #width: number;
  /** `next[state * width + column]`: the state after reading that character. */
  readonly #next: Int32Array;
  /** The groups a state completes a literal of (its own and its suffixes'), as `[outStart[s], outStart[s + 1])` in `outGroups`. */
  readonly #outStart: Int32Array;
  readonly #outGroups: Int32Array;
  /** Per text, `found[group] === stamp` when a literal of the group was seen; `fired[state] === stamp` once a state's groups are marked. */
  readonly #found: Uint32Array;
  readonly #fired: Uint32Array;
  #stamp = 0;

  /**
   * @param groups each group's literals: ASCII, non-empty, compared with ASCII letters case-folded.
   * @throws RangeError when a literal is empty or holds a character outside ASCII.
   */
  constructor(groups: ReadonlyArray<readonly string[]>) {
    // The trie, straight into the transition table (at most one state per literal character):
    // 0 stands for "no child", since no edge leads back to the start state.
    let capacity = 1;
    const compact = new Uint8Array(ASCII);
    let width = 1;
    for (const literals of groups) {
      for (const literal of literals) {
        if (literal.length === 0 || /[^\x00-\x7f]/.test(literal)) throw new RangeError("a literal must be non-empty ASCII");
        capacity += literal.length;
        for (let i = 0; i < literal.length; i++) {
          const folded = FOLD[literal.charCodeAt(i)] as number;
          if (compact[folded] === 0) compact[folded] = width++;
        }
      }
    }
    const column = Uint8Array.from(FOLD, (folded) => compact[folded] as number);
    const next = new Int32Array(capacity * width);
    const ends: Array<number[] | undefined> = [];
    let states = 1;
    groups.forEach((literals, group) => {
      for (const literal of literals) {
        let state = 0;
        for (let i = 0; i < literal.length; i++) {
          const slot = state * width + (column[literal.charCodeAt(i)] as number);
          if (next[slot] === 0) next[slot] = states++;
          state = next[slot] as number;
        }
        const ending = ends[state];
        if (ending === undefined) ends[state] = [group];
        else ending.push(group);
      }
    });
    // Breadth-first: a state's failure state (its longest proper suffix in the trie) is done
    // before it, so missing transitions and inherited groups are copied from there.
    const failure = new Int32Array(states);
    // Most states end no literal and inherit none: they keep `undefined`.
    const outputs: Array<number[] | undefined> = ends;
    const queue: number[] = [];
    for (let c = 1; c < width; c++) if (next[c] !== 0) queue.push(next[c] as number);
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head] as number;
      const fail = failure[state] as number;
      const inherited = outputs[fail];
      if (inherited !== undefined) outputs[state] = [...new Set([...(outputs[state] ?? []), ...inherited])];
      for (let c = 1; c < width; c++) {
        const slot = state * width + c;
        const child = next[slot] as number;
        if (child === 0) {
          next[slot] = next[fail * width + c] as number;
        } else {
          failure[child] = next[fail * width + c] as number;
          queue.push(child);
        }
      }
    }
    const outStart = new Int32Array(states + 1);
    const outGroups: number[] = [];
    for (let state = 0; state < states; state++) {
      outStart[state] = outGroups.length;
      for (const group of outputs[state] ?? []) outGroups.push(group);
    }
    outStart[states] = outGroups.length;
    this.#column = column;
    this.#width = width;
    this.#next = next.subarray(0, states * width);
    this.#outStart = outStart;
    this.#outGroups = Int32Array.from(outGroups);
    this.#found = new Uint32Array(groups.length);
    this.#fired = new Uint32Array(states);
  }

  /**
   * Reads `text` once. The returned function says whether group `g` has a literal in it; it
   * answers for this text only until the next call of `scan`.
   */
  scan(text: string): (group: number) => boolean {
    const stamp = this.#nextStamp();
    const next = this.#next;
    const column = this.#column;
    const width = this.#width;
    const outStart = this.#outStart;
    const fired = this.#fired;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      state = code < ASCII ? (next[state * width + (column[code] as number)] as number) : 0;
      if (state !== 0 && fired[state] !== stamp) {
        fired[state] = stamp;
        for (let o = outStart[state] as number, end = outStart[state + 1] as number; o < end; o++) this.#found[this.#outGroups[o] as number] = stamp;
      }
    }
    const found = this.#found;
    return (group) => found[group] === stamp;
  }

  #nextStamp(): number {
    if (this.#stamp === 0xffffffff) {
      this.#found.fill(0);
      this.#fired.fill(0);
      this.#stamp = 0;
    }
    return ++this.#stamp;
  }
}
