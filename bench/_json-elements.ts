// Splits a JSON document, fed in chunks, into the elements of its top-level arrays: for a
// manifest or an export (one object whose `records` member is an array of objects), each record
// entry as its own bytes, and the rest of the document with those arrays emptied. It lets a
// benchmark run `JSON.parse` on every part of a document too large for one string (a
// 1,000,000-record manifest is over 2 GB; V8 strings stop near 512 MiB) while holding one record.
//
// It trusts its input to be valid JSON (it is fed the files `ingest` just wrote): it tracks only
// nesting and strings, and validates nothing. Bytes of 0x80 and above are never structural in
// UTF-8, so a chunk boundary inside a character does not matter.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Splits one document; `push` each chunk in order, then `end`. */
export class JsonElementSplitter {
  #depth = 0;
  #inString = false;
  #escapePending = false;
  /** True while the container at depth 2 (a member of the top-level value) is an array. */
  #inTopArray = false;
  /** Pieces of the element being read, from earlier chunks. */
  #element: Buffer[] = [];
  #inElement = false;
  /** Pieces of the document outside the top-level arrays' elements. */
  #shell: Buffer[] = [];

  /** The elements completed within `chunk` (each an object or array, as its bytes). */
  push(chunk: Buffer): Buffer[] {
    const done: Buffer[] = [];
    const n = chunk.length;
    let elementStart = this.#inElement ? 0 : -1;
    let shellStart = this.#inTopArray ? -1 : 0;
    // The next backslash at or after the scan position, found once per stretch: scanning for it
    // at every string would cross the whole chunk each time when there is none.
    let nextBackslash = -2;
    let i = 0;
    while (i < n) {
      if (this.#escapePending) {
        this.#escapePending = false;
        i++;
        continue;
      }
      if (this.#inString) {
        const quote = chunk.indexOf(QUOTE, i);
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = chunk.indexOf(BACKSLASH, i);
        if (nextBackslash !== -1 && (quote === -1 || nextBackslash < quote)) {
          i = nextBackslash + 1;
          this.#escapePending = true;
          continue;
        }
        if (quote === -1) break;
        this.#inString = false;
        i = quote + 1;
        continue;
      }
      const c = chunk[i] as number;
      if (c === QUOTE) {
        this.#inString = true;
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        this.#depth++;
        if (this.#depth === 2 && c === OPEN_ARRAY) {
          this.#inTopArray = true;
          this.#shell.push(chunk.subarray(shellStart, i + 1));
          shellStart = -1;
        } else if (this.#depth === 3 && this.#inTopArray) {
          this.#inElement = true;
          elementStart = i;
        }
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (this.#depth === 3 && this.#inElement) {
          this.#element.push(chunk.subarray(elementStart, i + 1));
          done.push(this.#element.length === 1 ? (this.#element[0] as Buffer) : Buffer.concat(this.#element));
          this.#element = [];
          this.#inElement = false;
          elementStart = -1;
        } else if (this.#depth === 2 && this.#inTopArray) {
          this.#inTopArray = false;
          shellStart = i;
        }
        this.#depth--;
      }
      i++;
    }
    if (this.#inElement) this.#element.push(chunk.subarray(elementStart));
    if (shellStart !== -1) this.#shell.push(chunk.subarray(shellStart));
    return done;
  }

  /** The document outside the elements (its top-level arrays emptied), once every chunk is pushed. */
  end(): Buffer {
    return Buffer.concat(this.#shell);
  }
}
