// Look-alike letters folded to ASCII in matching views (never in the text a caller gets back).
// NFKD already maps fullwidth, mathematical, ligature and circled forms; this table covers letters
// of other scripts that look (nearly) identical to a Latin one (Cyrillic "о", Greek "ο", Armenian "օ").

// Each pair is a look-alike and the ASCII letter it folds to.
const PAIRS: readonly string[] = [
  // Cyrillic lower case
  "аa вb еe ёe кk мm нh оo рp сc тt уy хx ѕs іi їi јj ԁd ԛq ԝw ӏl үy һh ɡg ոn սu օo ցg հh ԗr ɑa ıi",
  // Cyrillic upper case
  "АA ВB ЕE ЁE КK МM НH ОO РP СC ТT УY ХX ЅS ІI ЇI ЈJ ԀD ԚQ ԜW ӀI ҮY ҺH",
  // Greek
  "αa βb εe ιi κk νv οo ρp τt υu χx γy ϲc ϳj ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX ϹC",
  // Latin and symbol look-alikes that NFKD keeps
  "ℓl ǀl ꞁl ʀr ᴀa ᴄc ᴇe ɪi ᴏo ꜱs ᴛt ᴜu ɴn ᴍm ᴘp",
].flatMap((group) => group.split(" "));

const TABLE: ReadonlyMap<number, string> = new Map(PAIRS.map((pair) => [pair.codePointAt(0) as number, pair.slice(1)] as const));

/** Replace every look-alike code point with its ASCII letter; other code points are kept. */
export function foldConfusables(text: string): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    out += code < 0x80 ? ch : (TABLE.get(code) ?? ch);
  }
  return out;
}
