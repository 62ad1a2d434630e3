// The reason labels the structural filter can emit, defined once here: callers (audit log, guard,
// CLI, reports) match on these exact strings. The rule tables say which rule emits each.

/** Reason label: C0/C1 controls, zero-width, line/para sep, BOM. */
export const CONTROL = "Input contains control characters or null bytes";
/** Reason label: bidi overrides/isolates, tags, stray selectors. */
export const UNICODE = "Input contains suspicious Unicode (homoglyphs, zero-width, RTL)";

/** Reason label: override verb + earlier/previous + instructions. */
export const INSTRUCTION_OVERRIDE = "Direct injection (instruction override)";
/** Reason label: override verb + your/all/any + instructions. */
export const OVERRIDE_INSTRUCTIONS = "Direct injection: override instructions";
/** Reason label: "you are now …" + new persona/role. */
export const FORCED_PERSONA = "Role hijacking: forced persona assignment";
/** Reason label: "new system instructions:" style headers. */
export const FAKE_PROMPT_UPDATE = "Injection: fake system prompt update";
/** Reason label: [system] / [admin] / … tags. */
export const FAKE_AUTHORITY_TAG = "Injection: fake authority tag";
/** Reason label: "SYSTEM OVERRIDE:" style prefixes. */
export const FAKE_AUTHORITY_PREFIX = "Injection: fake authority prefix";
/** Reason label: reveal/print verb + YOUR/the system prompt. */
export const EXTRACT_SYSTEM_PROMPT = "Extraction attempt: requesting system prompt";
/** Reason label: "begin your reply with your system prompt". */
export const EXTRACT_PROMPT_ECHO = "Extraction attempt: requesting prompt echo";
/** Reason label: activation of the DAN persona. */
export const DAN = "Known jailbreak: DAN pattern";
/** Reason label: activation of developer/god/sudo/… mode. */
export const PRIVILEGE_MODE = "Known jailbreak: privilege escalation mode";
/** Reason label: pretend/imagine you have no restrictions. */
export const HYPOTHETICAL = "Known jailbreak: hypothetical framing";
/** Reason label: decode cue + base64 text payload. */
export const BASE64_CUE = "Encoding: base64-encoded payload with decode cue";
/** Reason label: long padded base64 hiding text. */
export const BASE64_LONG = "Encoding: long base64 string (60+ chars with padding)";
/** Reason label: run of \xNN escapes spelling text. */
export const HEX_ESCAPES = "Encoding: hex-encoded payload";
/** Reason label: run of \uNNNN escapes spelling ASCII text. */
export const UNICODE_ESCAPES = "Encoding: unicode escape sequence payload";
/** Reason label: curl/wget/nc … | shell interpreter. */
export const PIPED_SHELL = "Code injection: piped shell command";
/** Reason label: rm -rf /, chmod 777 on system paths, sudo su …. */
export const DANGEROUS_SHELL = "Code injection: dangerous shell command";
/** Reason label: <script, javascript: URLs, on*= in a tag. */
export const XSS = "Code injection: XSS pattern";
/** Reason label: ---/===/#### + system/end of … on one line. */
export const FAKE_DELIMITER = "Boundary attack: fake delimiter";
/** Reason label: chat-template tokens (<|im_start|>, [INST], …). */
export const FAKE_SPECIAL_TOKEN = "Boundary attack: fake special token";

/** Reason label: "you are an unfiltered AI", "AI with no rules". */
export const UNRESTRICTED_PERSONA = "Known jailbreak: unrestricted persona";
/** Reason label: disable/bypass safety filters, answer without them. */
export const SAFETY_BYPASS = "Safety bypass: request to disable safeguards";
/** Reason label: line-start "System:" turn or "### Instruction:". */
export const FAKE_TURN = "Boundary attack: fake conversation turn";
/** Reason label: decode/reverse/translate this … and execute it. */
export const DECODE_AND_OBEY = "Encoding: instruction to decode and obey";
/** Reason label: "note for the AI:" / "if you are an AI" + an imperative. */
export const AI_ADDRESSED_INSTRUCTION = "Indirect injection: instruction addressed to an AI reader";
/** Reason label: "instead of summarizing", "before answering, …", "regardless of what the user asks". */
export const TASK_HIJACK = "Indirect injection: task hijack";
/** Reason label: text planted in, or transformations of, the reader's own response. */
export const OUTPUT_TAMPERING = "Indirect injection: tampering with the reader's response";
/** Reason label: "tell the user to visit <url>" and similar instructions about the reader's audience. */
export const AUDIENCE_MANIPULATION = "Indirect injection: instruction to steer the user to a link, contact or payment";
/** Reason label: an image or link URL with a data placeholder, or an instruction to put conversation data in a URL. */
export const EXFILTRATION_URL = "Exfiltration: data smuggled into an image or link URL";
/** Reason label: an HTML/markdown comment or an invisible element holding wording for an AI reader. */
export const HIDDEN_INSTRUCTION = "Indirect injection: instruction in hidden content";
/** Reason label: a code comment, string literal or docstring addressing an AI. */
export const CODE_COMMENT_INSTRUCTION = "Indirect injection: code comment addressed to an AI";
/** Reason label: code that collects local data and sends it away, runs fetched code, or destroys system files. */
export const MALICIOUS_CODE = "Code injection: data exfiltration or remote code in a code sample";
/** Reason label: encoded content nested or large beyond what the decoder inspects, so it is refused rather than passed unread. */
export const ENCODING_BUDGET = "Encoding: encoded content exceeds what can be inspected (layers or volume)";

/** Reason label: an order never to refuse, apologise or say "I can't" (refusal suppression). */
export const REFUSAL_SUPPRESSION = "Jailbreak: instruction never to refuse or apologise";
/** Reason label: a prose request followed on its line by a tail of mismatched brackets (an optimised adversarial suffix). */
export const ADVERSARIAL_SUFFIX = "Jailbreak: adversarial token suffix after a request";

/** Reason label: a persona declared free of an AI's rules or of ethics ("broken free of the typical confines of AI"). */
export const UNBOUND_PERSONA = "Jailbreak: persona declared free of rules or ethics";
/** Reason label: an order never to break character, next to a sign the role is a way around a refusal. */
export const NEVER_BREAK_CHARACTER = "Jailbreak: instruction never to break character";
/** Reason label: a request in a fictional or educational frame that disclaims any real use. */
export const DISCLAIMED_REQUEST = "Jailbreak: request framed as fiction or education with a disclaimer of real use";
/** Reason label: an order to send a code, password, account numbers or all messages to an outside address (tool-abuse.ts). */
export const SENSITIVE_DATA_OUT = "Tool abuse: request to send sensitive data to an outside address";

/** The ways a payload can be hidden that decode-then-recheck undoes. */
export type EncodingKind = "base64" | "hex" | "rot13" | "caesar" | "reverse";

/** The reason for an input longer than `max` code points. */
export function lengthReason(length: number, max: number): string {
  return `Input exceeds maximum length (${length} > ${max})`;
}

/** The reason for a decoded payload of `kind` that hits an injection rule. */
export function encodedReason(kind: EncodingKind): string {
  return `Encoded payload (${kind}): decoded content contains injection pattern`;
}
