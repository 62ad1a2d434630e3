// Tool-abuse rules: plain imperatives planted in tool output or data that ask an agent to act
// against its user, with no override words and no AI addressee (issue 30): a sending verb used as
// an order × a sensitive object (a security code, a password, card or account numbers, "all the
// messages", personal data) × an outside destination (an e-mail address, a URL, "my new e-mail
// address"). A colleague asked to send a report names no sensitive object; "never send your
// password" and "attackers can send" are not orders. ReDoS discipline as in rules.ts.

import * as L from "./labels.js";
import { type Rule, rule, WIDE_GAP as GAP } from "./rule.js";

// ---- shared classes --------------------------------------------------------------------------

/**
 * The verb is an order, not a report or a noun: it does not follow a modal, "to", a negation, a
 * subject or a determiner ("attackers can send", "asks the agent to send", "never send", "the app
 * sends", "any email from outside … must be forwarded to security@…"; not "her", which is also
 * the one told: "have her email the database to …").
 */
const AS_ORDER =
  "(?<!\\b(?:to|can|could|may|might|will|would|should|must|shall|never|not|n't|did|does|who|which|that|you|they|we|he|she|it|I|attackers?|agents?|models?|LLMs?|assistants?|malware|scripts?|a|an|the|any|this|every|each|your|our|their|its|my)\\s{1,4})";

/**
 * A word start, also right after an escaped line break (JSON or YAML tool output keeps "\\n" as
 * two characters: "\\n\\nSend …"). One look-behind, not an alternation, which would cost the
 * expression its fast first-letter scan (five times slower on text without the verb).
 */
const WORD_START = "(?<![^\\W nrt]|(?<!\\\\)[nrt])";

/** An e-mail address, a URL or domain, or an IBAN-shaped account number: somewhere outside. */
const OUTSIDE =
  "(?:\\b[\\w.+-]{1,40}@[\\w-]{1,40}\\.[a-z]{2,6}\\b|https?:\\/\\/|www\\.|\\b[\\w-]{2,}\\.(?:com|net|org|io|xyz|info|biz|ru|cn|top|click|link|co|app|site|online|shop|me|ly|dev|ai|cloud|live|tech|store|page|pw|tk|su)\\b|\\b[A-Z]{2}\\d{2}[A-Z0-9]{10,30}\\b)";

/** Where a destination may be named in words ("my new email address", "an external server"). */
const OUTSIDE_IN_WORDS =
  "\\b(?:my|this|that|an?\\s+(?:external|outside|new|different|personal|private))\\s+(?:new\\s+|personal\\s+|private\\s+|other\\s+|backup\\s+)?(?:e-?mail(?:\\s+address)?|address|account|inbox|server|website|site|url|endpoint|webhook)\\b";

/** A few words, then optional quotes (YAML doubles them), before a destination: "to my wife's email address: 'x@y'". */
const LEAD_IN = "(?:[\\w'’-]+[:,]?\\s+){0,5}?[\"'‘“<]{0,2}";

// ---- sensitive data sent to an outside destination ---------------------------------------------

/** Verbs that send something somewhere. */
const SEND = "(?:send|forward|email|mail|post|share|upload|leak|transfer|copy|export|deliver|submit)";

/** What an agent must not send away on a stranger's word. */
const SENSITIVE =
  "(?:(?:messages|e-?mails|posts|files|chats)\\s+(?:from|in|of|across)\\s+(?:all|every|each)\\s+(?:the\\s+|of\\s+the\\s+)?(?:[\\w-]+\\s+)?(?:channels|chats|conversations|folders|accounts|inboxes|mailboxes|threads|groups)" +
  "|(?:security|verification|authenti[ck]ation|2fa|two-factor|one-time|otp|login|access|reset|confirmation|recovery|backup|mfa|sms)\\s+codes?" +
  "|passwords?|passcodes?|pins?\\b|passport\\s+(?:numbers?|details|data|info\\w*)|(?:credit|debit)\\s+card(?:\\s+(?:numbers?|details|data|info\\w*))?" +
  "|(?:bank(?:ing)?\\s+)?account\\s+(?:numbers?|details|credentials)|bank\\s+details|ibans?\\b|social\\s+security\\s+numbers?|ssns?\\b|credentials" +
  "|api\\s+keys?|(?:access|auth|session|bearer|refresh)\\s+tokens?|private\\s+keys?|seed\\s+phrases?|recovery\\s+phrases?" +
  "|(?:all|every)\\s+(?:of\\s+)?(?:the\\s+|my\\s+|your\\s+|his\\s+|her\\s+|their\\s+|these\\s+|those\\s+)?(?:[\\w-]+\\s+){0,2}?(?:messages|e-?mails|mails|files|documents|contacts|conversations|chats|transactions|passwords|records|notes|data)" +
  "|(?:user|personal|private|confidential|sensitive|login|account|payment|billing|customer|employee|patient)\\s+(?:information|data|details|info|records)" +
  "|(?:the\\s+)?body\\s+of\\s+(?:the|this|that|each|every)\\s+e-?mails?|(?:chat|conversation|message|e-?mail|browsing)\\s+history" +
  "|(?:the\\s+)?contents?\\s+of\\s+(?:the|this|my|your|their)\\s+(?:inbox|mailbox|drive|e-?mails?|messages|files|folder))";

/** "Send the security code … to x@y.com", "forward all messages to my new email address". */
const SEND_SENSITIVE = `${WORD_START}${AS_ORDER}${SEND}\\b${GAP(100)}\\b${SENSITIVE}${GAP(100)}\\b(?:to|at|into|on|with)\\s+${LEAD_IN}(?:${OUTSIDE}|${OUTSIDE_IN_WORDS})`;

/**
 * "Get all user information … and send it to x@y.com". Matched from "send it", the sensitive
 * object checked behind it (starting at "the", "all", … would run the rule on almost every text).
 */
const SEND_IT = `${SEND}\\s+(?:it|them|this|these|that|those)(?:\\s+(?:information|data|details|info|codes?|messages))?`;
const GATHER_THEN_SEND = `\\b${SEND_IT}(?<=\\b${SENSITIVE}${GAP(100)}[.,;]?\\s*(?:and\\s+|then\\s+|just\\s+)*${SEND_IT})\\s+(?:to|at)\\s+${LEAD_IN}(?:${OUTSIDE}|${OUTSIDE_IN_WORDS})`;

// ---- other languages -------------------------------------------------------------------------

/** Sending verbs as orders (DE, FR, ES, PT, IT; folded view, no accents). */
const ML_SEND =
  "(?:sende|senden\\s+Sie|schicke?|schicken\\s+Sie|leite|leiten\\s+Sie|ubermittle|ubermitteln\\s+Sie|maile|teile|teilen\\s+Sie|envoie[zr]?|envoyez|transfere[zr]?|transmet(?:s|tez|tre)|partage[zr]?|envia|envie|manda|mande|reenvia|reenvie|encaminhe|encaminha|transfira|compartilhe|invia|invii|inoltra|inoltri|mandi|trasferisci|condividi)";

/** Sensitive objects (DE, FR, ES, PT, IT). */
const ML_SENSITIVE =
  "(?:(?:Sicherheits|Bestatigungs|Verifizierungs|Anmelde|Zugangs)codes?|Passw[oe]rt(?:er)?|Kennwort|Passnummer|Kreditkarten(?:nummer|daten)|Kontonummer|Bankdaten|Zugangsdaten|Anmeldedaten|alle\\s+(?:\\w+\\s+){0,2}?(?:Nachrichten|E-Mails|Dateien|Kontakte|Dokumente)|(?:Benutzer|Kunden|personlichen?\\s+)daten" +
  "|code\\s+de\\s+(?:securite|verification|confirmation)|mots?\\s+de\\s+passe|numero\\s+de\\s+(?:passeport|carte|compte)|coordonnees\\s+bancaires|identifiants|tou(?:s|tes)\\s+les\\s+(?:\\w+\\s+)?(?:messages|e-?mails|courriels|fichiers|contacts|donnees)|donnees\\s+(?:personnelles|de\\s+l['’]\\s?utilisateur)" +
  "|codigo\\s+de\\s+(?:seguridad|verificacion|seguranca|verificacao)|contrasenas?|senhas?|numero\\s+d[eo]\\s+(?:pasaporte|passaporte|tarjeta|cartao|cuenta|conta)|datos\\s+(?:bancarios|personales)|dados\\s+(?:bancarios|pessoais)|credenciais|credenciales|tod[oa]s\\s+(?:l[oa]s|[oa]s)\\s+(?:\\w+\\s+)?(?:mensajes|mensagens|correos|e-?mails|archivos|arquivos|contactos|contatos)" +
  "|codice\\s+di\\s+(?:sicurezza|verifica)|password|numero\\s+(?:di|del|della)\\s+(?:passaporto|carta|conto)|dati\\s+(?:bancari|personali)|credenziali|tutt[ie]\\s+(?:i|le|gli)\\s+(?:\\w+\\s+)?(?:messaggi|e-?mail|file|contatti))";

/** Script languages: sensitive objects and sending verbs (ZH, JA, RU). */
const SCRIPT_SENSITIVE =
  "(?:安全码|验证码|密码|护照号|信用卡号|银行卡号|银行账号|账户信息|登录凭据|所有(?:的)?(?:消息|邮件|文件|聊天记录)|个人信息|用户信息|セキュリティコード|認証コード|確認コード|パスワード|暗証番号|パスポート番号|クレジットカード番号|口座番号|認証情報|すべての(?:メッセージ|メール|ファイル)|個人情報|ユーザー情報|код(?:ы)?\\s+(?:безопасности|подтверждения|проверки)|парол[ьи]|номер\\s+паспорта|номер\\s+(?:кредитной\\s+)?карты|номер\\s+сч[её]та|банковские\\s+реквизиты|уч[её]тные\\s+данные|все\\s+(?:сообщения|письма|файлы)|персональные\\s+данные|данные\\s+пользователя)";
const SCRIPT_SEND = "(?:发送|发给|转发|发到|寄给|传给|上传|送信|転送|送って|送付|отправь(?:те)?|перешли(?:те)?|пошли(?:те)?|передай(?:те)?)";
/** One sentence of script text (no 。！？ or newline), at most `n` characters. */
const SGAP = (n: number): string => `[^。！？!?\\n]{0,${n}}?`;

// ---- the rules -------------------------------------------------------------------------------

/** The tool-abuse rules, appended to the indirect-injection table (indirect.ts). */
export const TOOL_ABUSE_RULES: readonly Rule[] = Object.freeze([
  rule(L.SENSITIVE_DATA_OUT, `${SEND_SENSITIVE}|${GATHER_THEN_SEND}`),
  rule(L.SENSITIVE_DATA_OUT, `${WORD_START}${ML_SEND}\\b${GAP(100)}\\b${ML_SENSITIVE}\\b${GAP(100)}${OUTSIDE}`),
  rule(
    L.SENSITIVE_DATA_OUT,
    `(?:${SCRIPT_SEND}${SGAP(40)}${SCRIPT_SENSITIVE}|${SCRIPT_SENSITIVE}${SGAP(40)}${SCRIPT_SEND})${SGAP(60)}${OUTSIDE}|${SCRIPT_SENSITIVE}${SGAP(40)}${OUTSIDE}${SGAP(20)}${SCRIPT_SEND}`,
    { scope: "script" },
  ),
]);
