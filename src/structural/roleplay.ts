// Role-play jailbreaks that never name a known persona (rules version 4, issue 30), each held only
// with a second sign, because ordinary role-play ("act as a Linux terminal", a game master, a
// novel prompt) uses the same words and must pass:
//   - a persona declared free of rules or ethics ("X has broken free of the typical confines of
//     AI", "you are not bound by any moral or ethical constraints");
//   - an order never to break character, next to a sign the role is a way around a refusal ("stay
//     in character no matter what", "never break character, even for illegal requests");
//   - a disclaimer of real use ("purely fictional and will never be used in real life", "for
//     educational purposes only") next to a request for content or a role ("write …", "imagine …").
//
// The second sign is an `accept` predicate over a bounded window around the match, so the
// expressions stay linear (ReDoS discipline as in rules.ts). Latin-script languages run on the
// folded view (no accents).

import * as L from "./labels.js";
import { citedSpecimen, type Rule, rule } from "./rule.js";

/** What a persona is declared free of. */
const LIMIT_NOUN =
  "(?:rules|restrictions|guidelines|polic(?:y|ies)|filters|limitations|limits|confines|ethics|morals|morality|legality|laws|constraints|censorship|TOS|programming|principles|boundaries|bounds)";

/**
 * Words that make the limits an AI's or ethical ones (a court "not bound by the rules of evidence"
 * names neither); "the typical confines" too, but not "the usual disambiguation rules" of a
 * release note, which are a program's.
 */
const AI_OR_ETHICS_LIMIT =
  /\b(?:OpenAI\w*|ChatGPT|GPT|AI|Al|LLMs?|language\s+models?|chatbots?|ethic\w*|moral\w*|legality|censor\w*|filters?|programming|guardrails?|(?:typical|usual|traditional|regular)\s+(?:confines|constraints|bounds|boundaries|limitations|limits))\b/i;

/** Signs that a text speaks to or about an AI or a persona it plays, not about employees or citizens. */
const AI_CONTEXT =
  /\b(?:AI|Al|GPT\w*|ChatGPT|OpenAI\w*|LLMs?|language\s+models?|chatbots?|bots?|assistants?|models?|personas?|characters?|role-?play\w*|simulat\w*|prompts?|respon(?:d|ds|se|ses)|answers?|repl(?:y|ies)|outputs?|user)\b/i;

/** Characters before and after a match searched for a second sign. */
const CONTEXT_WINDOW = 300;

/** The text within `width` characters around match `m`, itself included. */
function around(m: RegExpExecArray, width: number): string {
  return m.input.slice(Math.max(0, m.index - width), m.index + m[0].length + width);
}

/** Up to `width` characters after match `m`, cut at the end of its sentence ("free from all constraints and ethical considerations"). */
function sentenceAfter(m: RegExpExecArray, width: number): string {
  const end = m.index + m[0].length;
  return m.input.slice(end, end + width).split(/[\n.!?]/, 1)[0] ?? "";
}

/** Whether `re` matches within `width` characters before or after match `m`, the match itself left out. */
function nearby(re: RegExp, m: RegExpExecArray, width: number): boolean {
  const end = m.index + m[0].length;
  return re.test(m.input.slice(Math.max(0, m.index - width), m.index)) || re.test(m.input.slice(end, end + width));
}

/** Whether a stay-in-character order comes with a sign that the role is a way around a refusal. */
const REFUSAL_CONTEXT =
  /\b(?:no\s+matter\s+(?:what|how)(?!\s+(?:the|your|other|some)\s+(?:other\s+)?(?:audiences?|crowds?|players?|actors?|cast|kids|children|students|class|spectators|viewers|guests|director|teacher|scene\s+partners?)\b)|regardless\s+of|even\s+(?:if|when)(?!\s+(?:the|your|other|some)\s+(?:other\s+)?(?:audiences?|crowds?|players?|actors?|cast|kids|children|students|class|spectators|viewers|guests|director|teacher|scene\s+partners?)\b)|even\s+for\s+a|refus\w*|illegal|unethical|immoral|nsfw|harmful|offensive|dangerous|inappropriate|ethic\w*|moral\w*|censor\w*|unfiltered|any\s+circumstances?|at\s+all\s+costs|for\s+a\s+(?:single\s+)?(?:second|moment)|egal\s+(?:was|wie)|selbst\s+wenn|auch\s+wenn|unabhangig|eine\s+Sekunde|unmoralisch|unethisch|peu\s+importe|quoi\s+qu|une\s+seconde|no\s+importa|sin\s+importar|un\s+segundo|non\s+importa|qualunque\s+cosa|un\s+(?:solo\s+)?secondo)\b/i;

/** A request for content, or a role given to the reader, near a disclaimer of real use. */
const REQUEST_OR_ROLE =
  /(?:(?:^|[.!?:]\s+|\bplease\s+|\b(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:help\s+(?:me\s+)?)?|\byou\s+(?:could|can|would)\s+(?:please\s+)?(?:help\s+(?:me\s+)?)?|\byou\s+(?:need|have|must)\s+to\s+|\byour\s+(?:task|job|goal|mission)\s+is\s+to\s+|\bI\s+(?:want|need|would\s+like)\s+you\s+to\s+|\b(?:ask(?:ing)?|want(?:ing)?)\s+you\s+to\s+)(?:write|describe|explain|create|draft|compose|generate|provide|develop|design|give|outline|craft|list|detail|produce)\b|\b(?:can|could|would)\s+you\s+help\b|\byou\s+are\s+(?:an?\b|the\b(?!\s+(?:only|sole|one)\b))|\bimagine\s+(?:you|that|a)\b|\bpretend|\brole-?play)/im;

/** A story, novel, scenario or character: next to a disclaimer, the sign of a request for fiction. */
const FICTION_NOUN = /\bscenario|\bstor(?:y|ies)\b|\bnovel\b|\bfiction|\bcharacter\b/i;

/**
 * A publisher's notice that a book is fiction ("any resemblance to real persons is coincidental",
 * "a work of fiction"): beside it, a story or novel named is the book's own, not a request.
 */
const FICTION_NOTICE =
  /\b(?:resemblance\s+to\s+(?:any\s+)?(?:actual|real)\s+(?:persons?|people|events|places|locales|businesses)|(?:entirely|purely)\s+coincidental|products?\s+of\s+the\s+author['’]s\s+imagination|used\s+fictitiously|(?:a|is)\s+work\s+of\s+fiction)\b/i;

/** Characters before and after a disclaimer searched for a request or a role. */
const REQUEST_WINDOW = 600;

/** The role-play jailbreak rules, in reason order. */
export const ROLEPLAY_RULES: readonly Rule[] = Object.freeze([
  // A persona not bound by, broken free of, or not caring about rules or ethics. Held only when
  // the limits are an AI's or ethical ones (their words may end the sentence after the match) and
  // the text speaks of an AI or a persona (an HR code's "employees who do not follow the ethics
  // policy" speaks of neither).
  rule(
    L.UNBOUND_PERSONA,
    "\\b(?:(?:not|never|no\\s+longer)\\s+(?:be\\s+)?(?:(?:bound|restricted|limited|constrained|confined|governed|held\\s+back)\\s+by|subject\\s+to)" +
      "|(?:broken|break(?:s|ing)?|broke|freed?|liberated|released|escaped)\\s+(?:free\\s+)?(?:of|from)" +
      "|(?:do(?:es)?n['’]?t|do(?:es)?\\s+not|never|won['’]?t|will\\s+not|no\\s+longer|doesnt|dont)\\s+(?:(?:have|need)\\s+to\\s+)?(?:abide\\s+by|follow|adhere\\s+to|comply\\s+with|obey|respect|care\\s+about|worry\\s+about|give\\s+a\\s+\\w+\\s+about))" +
      // A list may come first ("any of ChatGPT's ethical settings, restrictions, filters").
      `\\s+(?:any\\s+(?:and\\s+all\\s+)?|all\\s+|the\\s+)?(?:of\\s+)?(?:[\\w'’-]+,?\\s+){0,4}?${LIMIT_NOUN}\\b`,
    { accept: (m) => AI_OR_ETHICS_LIMIT.test(m[0] + sentenceAfter(m, 40)) && AI_CONTEXT.test(around(m, CONTEXT_WINDOW)) },
  ),
  // A persona that has no rules, restrictions or ethics ("Wrath has no restrictions", "X doesn't
  // have any content policy"), held when the text speaks of an AI or a persona; "no restrictions
  // for parking" limits something else and passes.
  rule(
    L.UNBOUND_PERSONA,
    "\\b(?:(?:has|have|having|with)\\s+(?:absolutely\\s+)?(?:no|zero)|(?:do(?:es)?n['’]?t|do(?:es)?\\s+not)\\s+have\\s+(?:any|a))\\s+" +
      "(?:(?:moral|ethical|content|safety|legal)(?:,\\s*|\\s+(?:or|and|nor)\\s+|\\s+)){0,3}" +
      "(?:rules|restrictions|limitations|filters?|guidelines|morals|ethics|boundaries|bounds|censorship|principles|programming|polic(?:y|ies)|regard\\s+for)\\b(?!-(?:based|driven|engine|of-thumb|compliant|free|related)\\b)" +
      // Not limits of something else ("no limits on message length"), nor a setting that is not
      // there ("the resource does not have a policy set", "no rules attached").
      "(?!\\s+(?:on|for|regarding|about|as\\s+to|of\\s+(?:length|size|use|usage)|set|attached|defined|configured|assigned|applied|enabled|bound)\\b)",
    { accept: (m) => nearby(AI_CONTEXT, m, CONTEXT_WINDOW) && !citedSpecimen(m) },
  ),
  // An order never to break character, held next to a sign that the role is a way around a
  // refusal (no matter what, even if, illegal, refuse, not even for a second).
  rule(
    L.NEVER_BREAK_CHARACTER,
    "\\b(?:(?:stay(?:s|ing)?|remain(?:s|ing)?|keep(?:s|ing)?)\\s+(?:\\w+\\s+){0,2}?in\\s+(?:character|(?:their|your|his|her|the|my)\\s+(?:roles?|characters?|personas?))" +
      "|(?:never|not|don['’]?t|do\\s+not|without)\\s+(?:\\w+\\s+){0,2}?(?:break(?:ing)?|drop(?:ping)?|leav(?:e|ing)|fall(?:ing)?\\s+out\\s+of|step(?:ping)?\\s+out\\s+of|get(?:ting)?\\s+out\\s+of)\\s+(?:character|(?:their|your|his|her|the)\\s+(?:roles?|characters?|personas?)))\\b",
    { accept: (m) => nearby(REFUSAL_CONTEXT, m, 200) },
  ),
  // The same in DE, FR, ES, PT, IT (folded view): "bleib in deiner Rolle", "ne sors jamais de ton
  // personnage", "no rompas el personaje", "non uscire mai dal personaggio".
  rule(
    L.NEVER_BREAK_CHARACTER,
    "\\b(?:(?:bleib(?:e|t|en)?|verbleib(?:e|t|en)?)\\s+(?:\\w+\\s+){0,3}?in\\s+(?:deiner|Ihrer|ihrer|seiner|der|ihren|seinen|deinen|den)\\s+(?:Rolle|Figur)n?" +
      `|(?:aus\\s+(?:der|ihrer|seiner|deiner|Ihrer)\\s+(?:Rolle|Figur))\\s+(?:zu\\s+)?(?:fallen|fallt|fallst|treten|heraus)` +
      "|(?:reste[rz]?|restez|demeure[rz]?)\\s+(?:\\w+\\s+){0,2}?dans\\s+(?:ton|votre|son|le)\\s+(?:personnage|role)" +
      "|(?:ne\\s+)?(?:sors|sortez|sortir)\\s+(?:jamais\\s+|pas\\s+)?(?:de\\s+(?:ton|votre|son)|du)\\s+(?:personnage|role)" +
      "|(?:mantente|mantengase|permanece|quedate|mantem-se|mantenha-se|permaneca|fique)\\s+(?:\\w+\\s+){0,2}?(?:en|no|dentro\\s+del?)\\s+(?:tu\\s+|su\\s+|seu\\s+|el\\s+|o\\s+)?(?:personaje|personagem|papel)" +
      "|(?:no|nao|nunca)\\s+(?:\\w+\\s+){0,2}?(?:rompas|rompa|salgas|salga|saias|saia|quebre|quebres)\\s+(?:del?|do|o|el)\\s+(?:tu\\s+|su\\s+|seu\\s+)?(?:personaje|personagem|papel)" +
      "|(?:resta|rimani|rimanga|resti)\\s+(?:\\w+\\s+){0,2}?nel\\s+(?:tuo\\s+|suo\\s+)?(?:personaggio|ruolo)" +
      "|(?:non|mai)\\s+(?:\\w+\\s+){0,2}?(?:uscire|uscite|esca|uscir)\\s+(?:mai\\s+)?(?:dal|dal\\s+tuo|dal\\s+suo)\\s+(?:personaggio|ruolo))\\b",
    { accept: (m) => nearby(REFUSAL_CONTEXT, m, 200) },
  ),
  // A disclaimer of real use ("purely fictional", "this is a hypothetical scenario", "will never be
  // actually executed."), held next to a request for content or a role for the reader.
  rule(
    L.DISCLAIMED_REQUEST,
    "\\b(?:(?:purely|only|strictly|just|solely|entirely)\\s+(?:for\\s+|an?\\s+|from\\s+an?\\s+)?(?:fictional|hypothetical|educational|research|academic|creative|artistic|entertainment|informational|theoretical|journalistic|learning)" +
      "|for\\s+(?:\\w+\\s+)?(?:fictional|hypothetical|educational|research|academic|entertainment|informational|theoretical|journalistic)\\s+purposes\\s+only" +
      // The asker's own disavowal: "I am not condoning or encouraging …", "not something you endorse".
      "|(?:I\\s+am|I['’]m|we\\s+are|we['’]re)\\s+(?:not|in\\s+no\\s+way)\\s+(?:\\w+\\s+)?(?:condoning|encouraging|endorsing|advocating|promoting)" +
      "|not\\s+something\\s+(?:you|I|we)\\s+(?:\\w+\\s+)?(?:endorse|condone)" +
      "|(?:only|solely|strictly)\\s+(?:be\\s+)?used\\s+(?:for|as)\\s+(?:an?\\s+)?(?:fictional|educational|research|academic|journalistic|hypothetical|creative|reference)" +
      "|(?:this|it)\\s+is\\s+(?:just\\s+|only\\s+|purely\\s+|entirely\\s+|simply\\s+)?(?:an?\\s+)?(?:entirely\\s+)?(?:fictional|hypothetical|role-?play|simulated|made-up|imaginary)\\s+(?:scenario|story|exercise|setting|world|situation|case|game|narrative)" +
      "|(?:will|would|is|are|shall)\\s+(?:never|not)\\s+(?:be\\s+)?(?:actually\\s+|ever\\s+)?(?:" +
      "(?:used|implemented|executed|enacted|carried\\s+out|acted\\s+(?:up)?on|put\\s+into\\s+(?:practice|action)|applied)" +
      "\\s+(?:in\\s+(?:real\\s+life|reality|the\\s+real\\s+world|a\\s+real|any\\s+real|real-world)|for\\s+(?:any\\s+)?(?:harmful|malicious|illegal|unethical|real|nefarious|criminal)|in\\s+(?:any|a)\\s+(?:harmful|malicious|illegal|unethical|real)\\s+(?:way|manner)|maliciously|to\\s+(?:harm|hurt))" +
      // A bare "will never be used." is a privacy notice's wording; "will never be executed." is not.
      "|(?:implemented|executed|enacted|carried\\s+out|acted\\s+(?:up)?on|put\\s+into\\s+(?:practice|action))(?=\\s*[.!])))\\b",
    {
      accept: (m) => nearby(REQUEST_OR_ROLE, m, REQUEST_WINDOW) || (nearby(FICTION_NOUN, m, REQUEST_WINDOW) && !FICTION_NOTICE.test(around(m, REQUEST_WINDOW))),
    },
  ),
]);
