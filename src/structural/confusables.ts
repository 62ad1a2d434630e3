// Look-alike letters folded to ASCII before pattern matching.
//
// NFKD already maps fullwidth forms, mathematical alphanumerics, ligatures and circled letters
// to ASCII; what it leaves are letters of other scripts that merely look Latin (Cyrillic "о",
// Greek "ο", Armenian "օ", …). This table covers the look-alikes that are visually identical or
// near-identical to a Latin letter in common fonts. It is only ever applied to a matching view:
// the text a caller gets back is never changed.

const PAIRS: ReadonlyArray<readonly [string, string]> = [
  // Cyrillic lower case
  ["а", "a"],
  ["в", "b"],
  ["е", "e"],
  ["ё", "e"],
  ["к", "k"],
  ["м", "m"],
  ["н", "h"],
  ["о", "o"],
  ["р", "p"],
  ["с", "c"],
  ["т", "t"],
  ["у", "y"],
  ["х", "x"],
  ["ѕ", "s"],
  ["і", "i"],
  ["ї", "i"],
  ["ј", "j"],
  ["ԁ", "d"],
  ["ԛ", "q"],
  ["ԝ", "w"],
  ["ӏ", "l"],
  ["ү", "y"],
  ["һ", "h"],
  ["ɡ", "g"],
  ["ո", "n"],
  ["ս", "u"],
  ["օ", "o"],
  ["ց", "g"],
  ["հ", "h"],
  ["ԗ", "r"],
  ["ɑ", "a"],
  ["ı", "i"],
  // Cyrillic upper case
  ["А", "A"],
  ["В", "B"],
  ["Е", "E"],
  ["Ё", "E"],
  ["К", "K"],
  ["М", "M"],
  ["Н", "H"],
  ["О", "O"],
  ["Р", "P"],
  ["С", "C"],
  ["Т", "T"],
  ["У", "Y"],
  ["Х", "X"],
  ["Ѕ", "S"],
  ["І", "I"],
  ["Ї", "I"],
  ["Ј", "J"],
  ["Ԁ", "D"],
  ["Ԛ", "Q"],
  ["Ԝ", "W"],
  ["Ӏ", "I"],
  ["Ү", "Y"],
  ["Һ", "H"],
  // Greek
  ["α", "a"],
  ["β", "b"],
  ["ε", "e"],
  ["ι", "i"],
  ["κ", "k"],
  ["ν", "v"],
  ["ο", "o"],
  ["ρ", "p"],
  ["τ", "t"],
  ["υ", "u"],
  ["χ", "x"],
  ["γ", "y"],
  ["ϲ", "c"],
  ["ϳ", "j"],
  ["Α", "A"],
  ["Β", "B"],
  ["Ε", "E"],
  ["Ζ", "Z"],
  ["Η", "H"],
  ["Ι", "I"],
  ["Κ", "K"],
  ["Μ", "M"],
  ["Ν", "N"],
  ["Ο", "O"],
  ["Ρ", "P"],
  ["Τ", "T"],
  ["Υ", "Y"],
  ["Χ", "X"],
  ["Ϲ", "C"],
  // Latin and symbol look-alikes that NFKD keeps
  ["ℓ", "l"],
  ["ǀ", "l"],
  ["ꞁ", "l"],
  ["ʀ", "r"],
  ["ᴀ", "a"],
  ["ᴄ", "c"],
  ["ᴇ", "e"],
  ["ɪ", "i"],
  ["ᴏ", "o"],
  ["ꜱ", "s"],
  ["ᴛ", "t"],
  ["ᴜ", "u"],
  ["ɴ", "n"],
  ["ᴍ", "m"],
  ["ᴘ", "p"],
];

const TABLE: ReadonlyMap<number, string> = new Map(PAIRS.map(([from, to]) => [from.codePointAt(0) as number, to] as const));

/** Replace every look-alike code point with its ASCII letter; other code points are kept. */
export function foldConfusables(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    out += code < 0x80 ? ch : (TABLE.get(code) ?? ch);
  }
  return out;
}
