// One pass over a text that finds which of many short ASCII literals it contains, ASCII letters
// compared without case (an Aho–Corasick automaton, every transition worked out ahead).
//
// The rule pre-check (rule-triggers.ts) used one alternation expression per rule over the
// lower-cased text: on prose holding none of the literals each expression scanned the whole text,
// and those scans cost more than half of the pre-check. Here every rule's literals share one
// automaton, and the text is read once, without a lower-cased copy.

/** Columns of the transition table: ASCII only; any other character returns to the start state. */
const ALPHABET = 128;

/** The column of an ASCII code, upper-case letters read as lower-case. */
const COLUMN = Uint8Array.from({ length: ALPHABET }, (_, code) => (code >= 65 && code <= 90 ? code + 32 : code));

/**
 * Groups of ASCII literals, and for a text, which groups have a literal in it. A group is
 * typically one rule's literals; the same literal may belong to several groups.
 */
export class LiteralScan {
  /** `next[state * ALPHABET + column]`: the state after reading that character. */
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
    // The trie: children per state by column, the groups each literal ends in.
    const children: Array<Map<number, number>> = [new Map()];
    const ends: Array<Set<number>> = [new Set()];
    groups.forEach((literals, group) => {
      for (const literal of literals) {
        if (literal.length === 0 || /[^\x00-\x7f]/.test(literal)) throw new RangeError("a literal must be non-empty ASCII");
        let state = 0;
        for (let i = 0; i < literal.length; i++) {
          const column = COLUMN[literal.charCodeAt(i)] as number;
          let child = (children[state] as Map<number, number>).get(column);
          if (child === undefined) {
            child = children.length;
            children.push(new Map());
            ends.push(new Set());
            (children[state] as Map<number, number>).set(column, child);
          }
          state = child;
        }
        (ends[state] as Set<number>).add(group);
      }
    });
    const states = children.length;
    // Breadth-first: a state's failure state (its longest proper suffix in the trie) is done
    // before it, so missing transitions and inherited groups are copied from there.
    const next = new Int32Array(states * ALPHABET);
    const failure = new Int32Array(states);
    const outputs: Array<Set<number>> = ends.map((set) => new Set(set));
    const queue: number[] = [];
    for (const [column, child] of children[0] as Map<number, number>) {
      next[column] = child;
      queue.push(child);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head] as number;
      const fail = failure[state] as number;
      for (const group of outputs[fail] as Set<number>) (outputs[state] as Set<number>).add(group);
      for (let column = 0; column < ALPHABET; column++) {
        const child = (children[state] as Map<number, number>).get(column);
        if (child === undefined) {
          next[state * ALPHABET + column] = next[fail * ALPHABET + column] as number;
        } else {
          failure[child] = next[fail * ALPHABET + column] as number;
          next[state * ALPHABET + column] = child;
          queue.push(child);
        }
      }
    }
    const outStart = new Int32Array(states + 1);
    const outGroups: number[] = [];
    for (let state = 0; state < states; state++) {
      outStart[state] = outGroups.length;
      outGroups.push(...(outputs[state] as Set<number>));
    }
    outStart[states] = outGroups.length;
    this.#next = next;
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
    const outStart = this.#outStart;
    const fired = this.#fired;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      state = code < ALPHABET ? (next[state * ALPHABET + (COLUMN[code] as number)] as number) : 0;
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
