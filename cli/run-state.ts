// What a command hands back to runMain: which command ran (for the refused exit code of
// exit-codes.ts) and the exit code of its result.
import type { CommandName } from "./exit-codes.js";

export interface RunState {
  command: CommandName;
  exitCode: number;
  /** The command was given `--canary embedded[:PATH]`, so it may have opened an embedded canary. */
  embeddedCanary?: boolean;
}
