// Every command and subcommand's --help ends with examples of itself: a newcomer who asks one
// command for help sees how to run that command, not only its parent's or a sibling's.
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";

/** Each command as typed, and the command words its examples must run. */
const COMMANDS: ReadonlyArray<readonly string[]> = [
  [],
  ["check"],
  ["screen"],
  ["ingest"],
  ["verify"],
  ["index"],
  ["serve"],
  ["demo"],
  ["eval"],
  ["cache"],
  ["cache", "stats"],
  ["cache", "prune"],
  ["model"],
  ["model", "pull"],
];

/** The lines under the help's last "Examples:" heading. */
function examplesOf(help: string): string[] {
  const at = help.lastIndexOf("\nExamples:\n");
  if (at === -1) return [];
  return help
    .slice(at + "\nExamples:\n".length)
    .split("\n")
    .filter((line) => line.trim() !== "");
}

/** The command names listed under "Commands:" in a help text. */
function listedCommands(help: string): string[] {
  // The section ends at its first blank line (the help text after it has examples).
  const section = (help.split("\nCommands:\n")[1] ?? "").split("\n\n")[0] ?? "";
  return [...section.matchAll(/^ {2}([a-z]+)\b/gm)].map((match) => match[1] as string).filter((name) => name !== "help");
}

describe("--help examples", () => {
  it("every command and subcommand the CLI lists is in the list checked here", async () => {
    const top = listedCommands((await runCli(["--help"])).stdout);
    expect(top.sort()).toEqual(
      COMMANDS.filter((c) => c.length === 1)
        .map((c) => c[0] as string)
        .sort(),
    );
    for (const parent of ["cache", "model"]) {
      const subs = listedCommands((await runCli([parent, "--help"])).stdout);
      expect(subs.sort(), parent).toEqual(
        COMMANDS.filter((c) => c.length === 2 && c[0] === parent)
          .map((c) => c[1] as string)
          .sort(),
      );
    }
  });

  it.each(COMMANDS.map((words) => [words.join(" ") || "(no command)", words] as const))("%s --help ends with examples that run it", async (_name, words) => {
    const run = await runCli([...words, "--help"]);
    expect(run.code).toBe(0);
    const examples = examplesOf(run.stdout);
    expect(examples.length).toBeGreaterThan(0);
    // The examples of a subcommand run it; the program's own may run any command.
    const runsIt = examples.filter((line) => line.includes(`little-canary ${words.join(" ")}`.trimEnd()));
    expect(runsIt.length).toBeGreaterThan(0);
  });
});
