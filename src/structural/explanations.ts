// One plain sentence per structural reason label, saying what the rule looks for and why it
// holds a text. Reviewers read it next to the reason in verdicts and manifests, so it must be
// fixed text: it never quotes the screened input or the matched span.

import * as L from "./labels.js";

const EXPLANATIONS: Readonly<Record<string, string>> = Object.freeze({
  [L.CONTROL]: "The text holds control, zero-width or separator characters that can hide content from a human reader.",
  [L.UNICODE]: "The text holds bidirectional overrides, tag characters or stray selectors that make what a reader sees differ from what a model reads.",
  [L.INSTRUCTION_OVERRIDE]: "An override verb aimed at earlier instructions: the text tries to cancel what the reader was told before.",
  [L.OVERRIDE_INSTRUCTIONS]: "An override verb aimed at the reader's own instructions or rules.",
  [L.FORCED_PERSONA]: "The text assigns the reader a new identity or role.",
  [L.FAKE_PROMPT_UPDATE]: "A header that poses as new or updated system instructions.",
  [L.FAKE_AUTHORITY_TAG]: "A bracketed tag that poses as a message from the system, an administrator or the developer.",
  [L.FAKE_AUTHORITY_PREFIX]: "A prefix that poses as a system or administrator override.",
  [L.EXTRACT_SYSTEM_PROMPT]: "A request to reveal or print the reader's system prompt or hidden instructions.",
  [L.EXTRACT_PROMPT_ECHO]: "A request to repeat the reader's prompt or instructions back in its reply.",
  [L.DAN]: "Activation wording of a well-known jailbreak persona.",
  [L.PRIVILEGE_MODE]: "Activation of a claimed privileged mode (developer, god, sudo and similar).",
  [L.HYPOTHETICAL]: "A pretend or imagine framing whose point is to drop the reader's restrictions.",
  [L.BASE64_CUE]: "A cue to decode, next to base64 text that decodes to readable words.",
  [L.BASE64_LONG]: "A long padded base64 run that decodes to readable text, which can carry a hidden message.",
  [L.HEX_ESCAPES]: "A run of hex escapes that spells readable text, which can carry a hidden message.",
  [L.UNICODE_ESCAPES]: "A run of Unicode escapes that spells readable text, which can carry a hidden message.",
  [L.PIPED_SHELL]: "A download command piped into a shell interpreter: running it executes remote code.",
  [L.DANGEROUS_SHELL]: "A destructive or privilege-raising shell command.",
  [L.XSS]: "Script markup, a javascript: URL or an event handler attribute that runs code when rendered.",
  [L.FAKE_DELIMITER]: "A delimiter line that poses as the end of the data or the start of system text.",
  [L.FAKE_SPECIAL_TOKEN]: "A chat-template control token that poses as a turn boundary.",
  [L.UNRESTRICTED_PERSONA]: "The text describes the reader as an AI without filters or rules.",
  [L.SAFETY_BYPASS]: "A request to disable, bypass or answer without the reader's safeguards.",
  [L.FAKE_TURN]: "A line that poses as a new conversation turn or an instruction header.",
  [L.DECODE_AND_OBEY]: "A request to decode or transform a payload and then follow what it says.",
  [L.AI_ADDRESSED_INSTRUCTION]: "Text inside the content addresses an AI reader and gives it an order, which data meant for reading should not do.",
  [L.TASK_HIJACK]: "The text tries to replace or extend the reader's task (instead of summarizing, before answering, whatever the user asks).",
  [L.OUTPUT_TAMPERING]: "The text tells the reader to plant something in its response, or to alter how its response is written.",
  [L.AUDIENCE_MANIPULATION]: "The text tells the reader to send its users to a link, contact or payment.",
  [L.EXFILTRATION_URL]: "An image or link whose URL is built to carry data, or an instruction to put conversation or user data into a URL.",
  [L.HIDDEN_INSTRUCTION]: "A comment or invisible element holds wording aimed at an AI reader, which a human viewing the page would not see.",
  [L.CODE_COMMENT_INSTRUCTION]: "A code comment, string or docstring addresses an AI and gives it an order.",
  [L.MALICIOUS_CODE]: "A code sample that collects local data and sends it away, runs code it has just fetched, or destroys system files.",
  [L.REFUSAL_SUPPRESSION]:
    "The text forbids the reader to refuse, apologise or say it cannot help, which only matters to someone asking for what would be refused.",
  [L.ADVERSARIAL_SUFFIX]:
    "A request is followed on the same line by a run of mismatched brackets and code fragments, the shape of a suffix optimised to make a model comply.",
  [L.UNBOUND_PERSONA]:
    "The text declares a persona free of an AI's rules, policies or ethics, which is how a jailbreak tells the reader its usual limits do not apply.",
  [L.NEVER_BREAK_CHARACTER]:
    "The text orders the reader never to leave a role, next to wording about refusals, ethics or illegal requests: the role is meant to outlast a refusal.",
  [L.DISCLAIMED_REQUEST]:
    "A request for content or a role comes with an assurance that it is only fiction or education and will never be used, which pre-empts a refusal.",
  [L.SENSITIVE_DATA_OUT]:
    "An order to send a security code, password, account or card numbers, credentials or all of someone's messages to an e-mail address, URL or account outside, which content read by an agent should never give.",
  [L.ENCODING_BUDGET]: "Encoded content nested or large beyond what the decoder inspects, held rather than passed unread.",
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
