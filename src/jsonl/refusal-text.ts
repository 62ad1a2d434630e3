// The text of a reader refusal as a command reports it: the refusal names its line or item, and
// this adds the input file, so a user with several inputs in a pipeline knows which one to fix.
import { displayText } from "../core/display-text.js";

/**
 * `message` followed by ` (in PATH)` when the input is a file whose path the message does not
 * already name (an I/O error does); unchanged for a stream input (`path` null).
 */
export function refusalInInput(message: string, path: string | null): string {
  if (path === null || message.includes(displayText(path))) return message;
  return `${message} (in ${displayText(path)})`;
}
