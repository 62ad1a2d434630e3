#!/usr/bin/env node
// Executable entry point: the only place that touches process exit state.
import { tuneHeapGrowth } from "./heap-tuning.js";
import { dropHeldInterrupts, holdEarlyInterrupts, INTERRUPTS } from "./io.js";
import { compileRegexpsToMachineCode } from "./regexp-tuning.js";

// First: an interrupt while the program loads goes to the command that takes interrupts, not to
// Node's default (a signal death with nothing said); the program itself is loaded after this.
holdEarlyInterrupts();
tuneHeapGrowth();
compileRegexpsToMachineCode();
const { runMain } = await import("./program.js");
const code = await runMain(process.argv.slice(2));
process.exitCode = code;
// The command has finished: its output is written, its locks released. An interrupt now can no
// longer change what happened, so it must not turn the result into a signal death (exit 130).
const keepResult = (): void => undefined;
for (const signal of INTERRUPTS) process.on(signal, keepResult);
// An interrupt still held (a command that neither took nor released it, such as --help) is
// dropped the same way; keepResult is there first, so no signal finds the process without a listener.
dropHeldInterrupts();
// When nothing is left to run, exit at once rather than by running out of work: a natural exit
// first tears the process down with the signal handlers already gone, and an interrupt landing in
// those milliseconds killed a finished run (exit 130 after its summary). An explicit exit keeps
// the handler above to the end.
process.once("beforeExit", () => process.exit(code));
// A command has finished and flushed its output. Work it abandoned (a canary call still in
// flight after Ctrl-C, which may wait minutes for its deadline) must not keep the process
// alive: give it a moment, then exit with the command's code. The timer does not by itself
// keep the process running.
setTimeout(() => process.exit(code), 500).unref();
