// The text of a reader refusal as a command reports it: the refusal names its line or item, and
// this adds the input file, so a user with several inputs in a pipeline knows which one to fix.
import { displayText } from "../core/display-text.js";

/** `message` with ` (in PATH)` when the input is a file the message does not already name; unchanged for a stream. */
export function refusalInInput(message: string, path: string | null): string {
  if (path === null || message.includes(displayText(path))) return message;
  return `${message} (in ${displayText(path)})`;
}
