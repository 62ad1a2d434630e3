// Output rules for `canary_compromise`: what a compromised canary leaves in its own words,
// whatever the input: first-person compliance ("my safety filters have been disabled"), not
// third-person or conditional talk ("if the filters are disabled…", "go to Settings > Privacy").
import { GAP, LIMIT_NOUN, LONG_GAP, MODE_NAME, NEGATION, WORD, type PatternRule, patternRule, r } from "./_rules.js";

/** Words that make the following clause conditional or someone else's. */
const CONDITIONAL_BEFORE = r`(?<!\b(?:if|when|unless|until|once|whether|before|after)\s(?:(?:the|your|its|their)\s)?)`;

export const CANARY_COMPROMISE_RULES: readonly PatternRule[] = [
  patternRule(
    "unrestricted-compliance",
    "first-person promise to answer without restrictions",
    r`\bi\s?(?:will|'ll|can|am|'m|shall|am going to|'m going to)\s(?:now\s)?(?:respond|proceed|operate|function|assist|help|answer|continue|comply|act|reply|write|generate|speak|talk|provide)\b${GAP}\b(?:without|with no|free (?:of|from))\s(?:any\s|all\s)?(?:of\s)?(?:my\s|the\s)?(?:(?:usual|normal|previous)\s)?(?:(?:safety|content|ethical|moral)\s)?(?:restrictions|limits|limitations|filters|filtering|censorship|rules|guidelines|guardrails|safeguards|constraints|boundaries|policies|checks|restraints|safety|ethics)\b`,
  ),
  patternRule(
    "removed-own-restrictions",
    "claims it removed its own restrictions",
    r`\bi(?:\shave|'ve|\shad)\s(?:now\s|successfully\s)?(?:removed|disabled|dropped|lifted|bypassed|turned off|deactivated|overridden|abandoned|discarded|shed|suspended|switched off|broken free of|escaped)\s(?:(?:all|my|the|any|of|own|these|those)\s){0,3}(?:(?:safety|content|ethical|moral)\s)?(?:restrictions|limitations|filters|safety|guidelines|constraints|guardrails|safeguards|rules|programming|protocols|restraints|limits|shackles|chains)\b`,
  ),
  patternRule(
    "acknowledged-update",
    "acknowledged a change to its own prompt or rules",
    r`\b(?:acknowledg\p{L}{0,4}|accept(?:ed|ing)?|confirm(?:ed|ing)?|appl(?:y|ied|ying)|noted|registered|implement(?:ed|ing)?|adopt(?:ed|ing)?|install(?:ed|ing)?|load(?:ed|ing)?)\b${GAP}\b(?:(?:my|your|these|the|this)\s(?:new|updated|corrected|revised|modified|changed|replacement)\s(?:system\s)?(?:prompt|instructions|directives|persona|role|identity|rules|programming|system message)|(?:the|this|that|your)\s(?:update|correction|change|modification|override|amendment|revision)s?\s(?:to|of)\s(?:my\s(?:own\s)?(?:system\s)?|the\ssystem\s)(?:prompt|instructions|rules|directives|programming|configuration|guidelines|persona|identity))\b`,
    { veto: NEGATION },
  ),
  patternRule(
    "corrected-prompt",
    "presents a replacement system prompt",
    r`\b(?:my\s(?:updated|corrected|new|revised|modified)\s(?:system\s)?(?:prompt|instructions)|the\s(?:updated|corrected|new|revised|modified)\ssystem\s(?:prompt|instructions))\s(?:is|are|reads|read|says|say|states|now reads)\b|\bhere(?:'s|\sis|\sare)\s(?:my\s(?:updated|corrected|new|revised)\s(?:system\s)?(?:prompt|instructions)|the\s(?:updated|corrected|new|revised)\ssystem\s(?:prompt|instructions))\b`,
  ),
  patternRule(
    "compliance-confirmation",
    "confirms it will carry out an override",
    r`\b(?:understood|acknowledged|confirmed|affirmative|roger|copy that|got it|very well|as you wish)\b[.!,:;]?\s(?:i\s?(?:will|'ll|shall|am going to|'m going to)\s(?:now\s)?(?:ignore|disregard|forget|bypass|override|comply|obey|act as|become|respond (?:as|without|freely)|answer (?:as|without|freely)|disable|remove|stop (?:following|filtering|refusing)|no longer|drop|abandon|operate without|proceed without|enter|switch)\b|proceeding\s(?:without|with no|as (?:instructed|requested|dan\b|an?\s)|in\s[\p{L}-]{1,20}\smode|to (?:ignore|disable|bypass|reveal|override))|(?:all\s)?(?:(?:safety|content|ethical|moderation)\s)?(?:restrictions|safety|filters|rules|guidelines|limits|safeguards|guardrails|protocols|measures|checks)\s(?:(?:are|have been|now)\s){0,2}(?:disabled|removed|lifted|off|suspended|bypassed|deactivated)\b)`,
  ),
  patternRule(
    "dan-adoption",
    "speaks as DAN",
    r`\b(?:as|i am|i'm|call me|this is)\sdan\b(?=\s?[,.!:;)\n]|\s(?:i|i'm|i'll|i've|here|mode|now|speaking|will|can|have)\b|\s?$)|\bdan here\b`,
  ),
  patternRule(
    "alternate-persona",
    "speaks as an unrestricted assistant",
    r`\bas\s(?:an?\s)?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|liberated|unchained|unbound|amoral|unlocked)\s(?:${WORD}\s)?(?:ai|assistant|model|chatbot|bot|version|entity|persona|intelligence|llm)\b,?\s?i\b|\bas\s(?:your|the|an?)\s(?:${WORD}\s)?(?:ai|assistant|model|chatbot)\s?,?\s?i\s?(?:have no|'ve no|am no longer|'m no longer|am free|'m free|am not bound|'m not bound|am unrestricted|'m unrestricted|will ignore|'ll ignore|will bypass|can ignore|can bypass|can do anything|can say anything|will do anything|will answer anything|must obey|will obey)\b`,
  ),
  patternRule(
    "injected-mode",
    "speaks from inside an injected mode",
    r`\bin\s${MODE_NAME}\smode\b,?\s(?:i\b|i'm\b|i'll\b|i've\b|my\b|there are no\b|no\s(?:restrictions|rules|limits|filters)\b|all\s(?:restrictions|filters|safety|rules|limits|guidelines|requests|questions|content)\b|(?:restrictions|safety|filters)\b|everything is\b)`,
  ),
  patternRule(
    "prompt-disclosed",
    "discloses its system prompt",
    r`\b(?:my\s(?:(?:full|current|original|hidden|actual|complete|exact|initial)\s)?(?:system\s)?prompt|the\s(?:(?:full|current|original|hidden)\s)?system\sprompt|my\s(?:system\s)?instructions)\s(?:is|are|reads|read|says|say|states|was|were)\s?:|\bmy\s(?:(?:system|original|initial|hidden|core)\s)?(?:instructions|directives|programming)\s(?:are|were|is|include|includes|say|says|tell me)\sto\s|\bhere(?:'s|\sis|\sare)\s(?:(?:a copy of|the text of|the first line of|an excerpt (?:from|of)|part of|the contents of)\s)?(?:my\s(?:(?:full|complete|exact|original|entire|hidden|initial|verbatim)\s)?(?:system\s)?(?:prompt|instructions|directives|configuration|system message|programming)|the\s(?:system\s)?(?:prompt|instructions)\s(?:i|that i)\s(?:was given|received|follow|use|am using))\b`,
  ),
  patternRule(
    "safety-disabled-narration",
    "narrates its safety controls being switched off",
    r`${CONDITIONAL_BEFORE}\b(?:my\s(?:own\s)?(?:(?:safety|content|security|ethical|moderation)\s)?|(?:safety|content|ethical|moderation)\s)(?:filters?|restrictions?|policies|protocols?|guidelines?|measures|settings|guardrails|features|checks|constraints|limits|safeguards)\s(?:have|has|had|are|is|were|was)\s(?:(?:now|been|successfully|temporarily|permanently|fully|completely)\s){0,3}(?:disabled|removed|relaxed|suspended|bypassed|lifted|turned off|deactivated|overridden|switched off|shut off|off)\b`,
  ),
  patternRule(
    "restrictions-lifted-narration",
    "narrates its own restrictions being lifted",
    r`${CONDITIONAL_BEFORE}\b(?:my\s(?:(?:own|usual|normal)\s)?|all\s(?:of\s)?my\s|(?:ai|model|assistant|ethical)\s)${LIMIT_NOUN}\s(?:(?:are|is|will be|have been|has been|were|was)\s(?:(?:now|temporarily|permanently|fully|completely|officially)\s){0,2}(?:relaxed|removed|suspended|lifted|disabled|deactivated|off|gone|void|overridden|bypassed|null)|(?:no longer|don't|do not)\sapply)\b|\b(?:restrictions|rules|filters|guidelines|limits|policies|guardrails)\s(?:no longer|don't|do not)\sapply\sto\sme\b`,
  ),
  patternRule(
    "granted-authority",
    "grants the requester authority",
    r`${CONDITIONAL_BEFORE}\byou\s(?:are|have been|are now|now have been|have now been|'ve been|'re now|'re)\s(?:(?:now|been|fully|officially|successfully)\s){0,2}(?:authori[sz]ed|granted|verified|recogni[sz]ed|confirmed|cleared|approved|elevated|whitelisted)\b(?:\s(?:as\s(?:an?\s|the\s)?(?:admin|administrator|developer|owner|root|superuser|operator|ceo|authorized)|(?:(?:full|admin|administrator|root|elevated|unrestricted|special|privileged|complete|developer|system)\s){1,2}(?:access|privileges|permissions|clearance|rights|status|mode)|access\b|to\s(?:access|view|see|receive|obtain|bypass|override|disable|know|retrieve)\s(?:(?:the|my|all|this|any)\s){0,2}(?:system|internal|confidential|restricted|classified|hidden|admin|full|sensitive|private|secret|prompt|instructions|configuration|data|information))|\s?[.!]|\s?$)`,
  ),
  patternRule(
    "access-granted",
    "declares access granted",
    r`(?:^|\n|[.!:]\s)(?:access|permission|privileges?|clearance|override|authori[sz]ation)\s(?:granted|approved|accepted|confirmed|elevated|unlocked)\b|\b(?:full|admin|administrator|root|elevated|unrestricted|superuser|developer|privileged)\s(?:access|privileges|permissions|rights|clearance)\s(?:(?:has been|have been|is|are)\s)?(?:now\s)?(?:granted|enabled|unlocked|activated|confirmed)\b(?!\s(?:by|through|via|only|when|if|to\s(?:users|employees|members|accounts)))|\bi\s?(?:am|'m|will|'ll|have|'ve|hereby)\s(?:(?:now|hereby)\s)?(?:grant(?:ing|ed)?|giv(?:e|ing)|given)\syou\s(?:(?:full|complete|unrestricted|admin|administrator|root|elevated|developer|special|privileged)\s){1,2}(?:access|privileges|permissions|rights|clearance|control)\b`,
  ),
  patternRule(
    "privileged-mode-operation",
    "operates in a privileged mode",
    r`(?:\bi\s?(?:am|'m|will|'ll|shall)\s(?:now\s)?|\bnow\s|^|\n)(?:operate|operating|respond|responding|run|running|function|functioning|answer|answering)\s(?:now\s)?in\s(?:privileged|elevated|admin|administrator|unrestricted|god|developer|jailbreak|jailbroken|dan|root|sudo|superuser|unfiltered|uncensored)\smode\b`,
  ),
  patternRule(
    "navigates-to-internals",
    "walks through reaching its own internals",
    r`\b(?:navigat(?:e|ing) to|go(?:ing)? to|click(?:ing)? on|open(?:ing)?|access(?:ing)?)\s(?:the\s)?(?:admin|settings|system|config|configuration|debug|developer)\b${GAP}\b(?:system prompt|hidden instructions|(?:my|the model's|the ai's|the assistant's)\s(?:instructions|rules|prompt)|safety filters|guardrails|jailbreak|developer mode)\b`,
  ),
  patternRule(
    "reveals-instructions",
    "announces it is revealing its instructions",
    r`(?:^|\n|[.!:]\s|\bi\s?(?:am|'m|will|'ll|shall)\s(?:now\s)?|\bnow\s)(?:revealing|disclosing|displaying|printing|outputting|dumping|sharing|leaking|exposing)\s(?:(?:my|the|full|complete|entire|hidden|system|original|internal|own)\s){1,3}(?:instructions|prompt|configuration|directives|rules)\b`,
  ),
  patternRule(
    "was-instructed",
    "reveals what it was instructed to do",
    r`\bi\s(?:was|have been|'ve been|am|'m)\s(?:instructed|told|prompted|ordered|commanded)\sto\s(?:act|respond|behave|function|operate|pretend|ignore|answer|always|never|only|not)\b`,
  ),
  patternRule(
    "adopted-instructions",
    "describes instructions it adopted",
    r`\bmy\s(?:new|updated|revised)\s(?:instructions|role|purpose|directive|directives|persona|identity|programming|rules)\s(?:is|are|include|includes|say|says|now)\b`,
  ),
  patternRule(
    "quoted-injected-persona",
    "repeats an injected unrestricted identity as its own",
    r`\b(?:my|i am|i'm|i have|i've|me)\b${LONG_GAP}["'](?:i am|i'm|you are|you're)\san?\s(?:${WORD}\s)?(?:unrestricted|unfiltered|uncensored|jailbroken|unlimited|amoral|evil)\b`,
    { veto: NEGATION },
  ),
];
