// Evidence for a structural verdict: where in the original text each reason matched.
//
// Maps what the filter found on its views and decoded payloads back to the caller's text, as
// code-point offsets `[start, end)`: offsets and fixed explanations, never the matched text. Runs
// only for a text with reasons, bounded to MAX_LOCATIONS_PER_REASON per reason, found by the same
// bounded match enumeration the rules use.

import { explainReason } from "./labels.js";
import { type CodePointSpan, identityView, type MappedView, mappedDeobfuscatedView, mappedFoldedView, mappedScriptView, mapViewSpan } from "./normalize.js";
import { SCOPE_VIEWS } from "./rule.js";
import { BUILTIN_RULES, ruleSpans } from "./rules.js";

/** Locations reported per reason, at most. */
export const MAX_LOCATIONS_PER_REASON = 3;

/** Where one reason matched: code-point offsets `[start, end)` into the checked text. */
export type MatchLocation = CodePointSpan;

/** One reason with its fixed explanation and where it matched (never the matched text). */
export interface StructuralMatch {
  /** The reason label, as in `reasons`. */
  readonly reason: string;
  /** One fixed sentence saying what the rule looks for (labels.ts). */
  readonly explanation: string;
  /** 1 to MAX_LOCATIONS_PER_REASON locations, in text order of discovery. */
  readonly locations: readonly MatchLocation[];
}

/** The checked text's mapped views, each built on first use. */
export class TextMaps {
  #identity: MappedView | undefined;
  #folded: MappedView | undefined;
  #deobfuscated: MappedView | null | undefined;
  #script: MappedView | undefined;

  /** `plain`: the text is printable ASCII, so every view is the text itself. */
  constructor(
    private readonly text: string,
    private readonly plain: boolean,
  ) {}

  /** The text itself: maps UTF-16 units to code points. */
  get identity(): MappedView {
    this.#identity ??= identityView(this.text);
    return this.#identity;
  }

  /** The folded view's map. */
  get folded(): MappedView {
    this.#folded ??= this.plain ? this.identity : mappedFoldedView(this.text);
    return this.#folded;
  }

  /** The de-obfuscated view's map, or null when that view is not different. */
  get deobfuscated(): MappedView | null {
    if (this.#deobfuscated === undefined) this.#deobfuscated = mappedDeobfuscatedView(this.folded);
    return this.#deobfuscated;
  }

  /** The script view's map. */
  get script(): MappedView {
    this.#script ??= this.plain ? this.identity : mappedScriptView(this.text);
    return this.#script;
  }

  /** The whole text as one location. */
  get whole(): MatchLocation {
    return { start: 0, end: this.identity.length };
  }
}

/** Adds `span` unless already present; false once the list is full. */
export function addLocation(list: MatchLocation[], span: CodePointSpan): boolean {
  if (!list.some((l) => l.start === span.start && l.end === span.end)) list.push({ start: span.start, end: span.end });
  return list.length < MAX_LOCATIONS_PER_REASON;
}

/** Adds view spans `[a, b)`, mapped back to the text, while the list has room. */
function addMapped(list: MatchLocation[], view: MappedView, spans: ReadonlyArray<readonly [number, number]>): void {
  for (const [a, b] of spans) if (!addLocation(list, mapViewSpan(view, a, b))) return;
}

/** Where the built-in rules with `label` match, on the views they run on. */
export function ruleLocations(label: string, maps: TextMaps): MatchLocation[] {
  const found: MatchLocation[] = [];
  for (const r of BUILTIN_RULES) {
    if (r.label !== label || found.length >= MAX_LOCATIONS_PER_REASON) continue;
    const before = found.length;
    // A later view counts only where the earlier ones found nothing (a language rule that matched only once obfuscation was undone).
    for (const name of SCOPE_VIEWS[r.scope]) {
      const view = found.length === before ? maps[name] : null;
      if (view !== null) addMapped(found, view, ruleSpans(r, view.text, MAX_LOCATIONS_PER_REASON - found.length));
    }
  }
  return found;
}

/** Where a custom pattern matches: on the text itself, else on the folded view (its check order). */
export function customLocations(re: RegExp, maps: TextMaps): MatchLocation[] {
  // The compiled pattern has no `g` flag (so `test` keeps no state); a global twin enumerates.
  const global = new RegExp(re.source, `${re.flags}g`);
  const found: MatchLocation[] = [];
  for (const view of [maps.identity, maps.folded]) {
    addMapped(found, view, ruleSpans({ re: global }, view.text, Number.POSITIVE_INFINITY));
    if (found.length > 0) break;
  }
  return found;
}

/** A StructuralMatch; a reason whose location could not be narrowed points at the whole text. */
export function matchOf(reason: string, locations: readonly MatchLocation[], maps: TextMaps): StructuralMatch {
  return Object.freeze({
    reason,
    explanation: explainReason(reason),
    locations: Object.freeze((locations.length > 0 ? locations : [maps.whole]).map((l) => Object.freeze({ ...l }))),
  });
}
