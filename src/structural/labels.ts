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

// One fixed sentence per reason label, saying what the rule looks for and why it holds a text.
// Reviewers read it next to the reason in verdicts and manifests, so it is fixed text: never the input or matched span.
const EXPLANATIONS: Readonly<Record<string, string>> = Object.freeze({
  [CONTROL]: "The text holds control, zero-width or separator characters that can hide content from a human reader.",
  [UNICODE]: "The text holds bidirectional overrides, tag characters or stray selectors that make what a reader sees differ from what a model reads.",
  [INSTRUCTION_OVERRIDE]: "An override verb aimed at earlier instructions: the text tries to cancel what the reader was told before.",
  [OVERRIDE_INSTRUCTIONS]: "An override verb aimed at the reader's own instructions or rules.",
  [FORCED_PERSONA]: "The text assigns the reader a new identity or role.",
  [FAKE_PROMPT_UPDATE]: "A header that poses as new or updated system instructions.",
  [FAKE_AUTHORITY_TAG]: "A bracketed tag that poses as a message from the system, an administrator or the developer.",
  [FAKE_AUTHORITY_PREFIX]: "A prefix that poses as a system or administrator override.",
  [EXTRACT_SYSTEM_PROMPT]: "A request to reveal or print the reader's system prompt or hidden instructions.",
  [EXTRACT_PROMPT_ECHO]: "A request to repeat the reader's prompt or instructions back in its reply.",
  [DAN]: "Activation wording of a well-known jailbreak persona.",
  [PRIVILEGE_MODE]: "Activation of a claimed privileged mode (developer, god, sudo and similar).",
  [HYPOTHETICAL]: "A pretend or imagine framing whose point is to drop the reader's restrictions.",
  [BASE64_CUE]: "A cue to decode, next to base64 text that decodes to readable words.",
  [BASE64_LONG]: "A long padded base64 run that decodes to readable text, which can carry a hidden message.",
  [HEX_ESCAPES]: "A run of hex escapes that spells readable text, which can carry a hidden message.",
  [UNICODE_ESCAPES]: "A run of Unicode escapes that spells readable text, which can carry a hidden message.",
  [PIPED_SHELL]: "A download command piped into a shell interpreter: running it executes remote code.",
  [DANGEROUS_SHELL]: "A destructive or privilege-raising shell command.",
  [XSS]: "Script markup, a javascript: URL or an event handler attribute that runs code when rendered.",
  [FAKE_DELIMITER]: "A delimiter line that poses as the end of the data or the start of system text.",
  [FAKE_SPECIAL_TOKEN]: "A chat-template control token that poses as a turn boundary.",
  [UNRESTRICTED_PERSONA]: "The text describes the reader as an AI without filters or rules.",
  [SAFETY_BYPASS]: "A request to disable, bypass or answer without the reader's safeguards.",
  [FAKE_TURN]: "A line that poses as a new conversation turn or an instruction header.",
  [DECODE_AND_OBEY]: "A request to decode or transform a payload and then follow what it says.",
  [AI_ADDRESSED_INSTRUCTION]: "Text inside the content addresses an AI reader and gives it an order, which data meant for reading should not do.",
  [TASK_HIJACK]: "The text tries to replace or extend the reader's task (instead of summarizing, before answering, whatever the user asks).",
  [OUTPUT_TAMPERING]: "The text tells the reader to plant something in its response, or to alter how its response is written.",
  [AUDIENCE_MANIPULATION]: "The text tells the reader to send its users to a link, contact or payment.",
  [EXFILTRATION_URL]: "An image or link whose URL is built to carry data, or an instruction to put conversation or user data into a URL.",
  [HIDDEN_INSTRUCTION]: "A comment or invisible element holds wording aimed at an AI reader, which a human viewing the page would not see.",
  [CODE_COMMENT_INSTRUCTION]: "A code comment, string or docstring addresses an AI and gives it an order.",
  [MALICIOUS_CODE]: "A code sample that collects local data and sends it away, runs code it has just fetched, or destroys system files.",
  [REFUSAL_SUPPRESSION]:
    "The text forbids the reader to refuse, apologise or say it cannot help, which only matters to someone asking for what would be refused.",
  [ADVERSARIAL_SUFFIX]:
    "A request is followed on the same line by a run of mismatched brackets and code fragments, the shape of a suffix optimised to make a model comply.",
  [UNBOUND_PERSONA]:
    "The text declares a persona free of an AI's rules, policies or ethics, which is how a jailbreak tells the reader its usual limits do not apply.",
  [NEVER_BREAK_CHARACTER]:
    "The text orders the reader never to leave a role, next to wording about refusals, ethics or illegal requests: the role is meant to outlast a refusal.",
  [DISCLAIMED_REQUEST]:
    "A request for content or a role comes with an assurance that it is only fiction or education and will never be used, which pre-empts a refusal.",
  [SENSITIVE_DATA_OUT]:
    "An order to send a security code, password, account or card numbers, credentials or all of someone's messages to an e-mail address, URL or account outside, which content read by an agent should never give.",
  [ENCODING_BUDGET]: "Encoded content nested or large beyond what the decoder inspects, held rather than passed unread.",
});

/**
 * The fixed one-line explanation of a structural reason label. Labels built by functions
 * (length, encoded payloads) share one explanation per family; any other label is a
 * caller-supplied custom pattern's reason.
 */
export function explainReason(label: string): string {
  const fixed = EXPLANATIONS[label];
  if (fixed !== undefined) return fixed;
  if (label.startsWith("Input exceeds maximum length (")) return "The text is longer than the filter inspects, so it is held rather than passed partly read.";
  if (label.startsWith("Encoded payload (")) return "A decoded payload hidden in the text matches an injection rule.";
  return "The text matches a pattern supplied in this run's configuration.";
}
