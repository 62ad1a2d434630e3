// A child process for test/cli/early-interrupt.test.ts: holds interrupts as the CLI's entry point
// does, sends itself the signal named by its first argument, and then either registers a handler
// through processIo a little later, printing what that handler receives; or (`unclaimed`) waits;
// or (`check`) runs `check --no-canary --text …` through the program, as main.ts would.
import { holdEarlyInterrupts, processIo } from "../../cli/io.js";

const [signal, mode] = process.argv.slice(2) as [NodeJS.Signals, string | undefined];
holdEarlyInterrupts();
process.kill(process.pid, signal);
if (mode === "check") {
  const { runMain } = await import("../../cli/program.js");
  process.exitCode = await runMain(["check", "--no-canary", "--text", "What is the capital of France?"]);
} else if (mode === "unclaimed") {
  // Something to wait for: the held signal must end the process before this does.
  setTimeout(() => process.stdout.write("not interrupted\n"), 5000);
} else {
  setTimeout(() => {
    const unregister = processIo().onSignal((received) => {
      process.stdout.write(`handled ${received}\n`);
      unregister();
    });
  }, 200);
}
