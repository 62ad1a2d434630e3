// How V8 compiles regular expressions, set once at start-up: straight to machine code.
//
// By default V8 first compiles a regular expression to bytecode (with a peephole pass), runs it
// once in its interpreter, and compiles it again to machine code on its second use. The
// structural rules are about fifty large case-insensitive expressions, the largest near 7,000
// characters, and a bytecode compile of those costs far more than the machine-code one: the
// first check of a process (all that `check` does) spent about 100 ms of CPU on bytecode for one
// rule alone. Long runs are unaffected (every rule they use reaches machine code after two uses
// anyway), and what an expression matches does not depend on how it was compiled. As with the
// heap factor, a user who passes a --regexp-tier-up flag (or its tick count) to node itself keeps that choice.
import { setFlagsFromString } from "node:v8";

/**
 * Makes V8 compile regular expressions straight to machine code unless node was started with a
 * tier-up flag; true when it set it. `setFlags` (tests) stands for V8's own: set in a process that
 * has already run its expressions, the flag leaves those compiled to bytecode in the interpreter
 * for good (a test worker's structural checks ran a hundred times slower after it).
 */
export function compileRegexpsToMachineCode(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = setFlagsFromString): boolean {
  if (execArgv.some((arg) => /^--(no-)?regexp[-_]tier[-_]up\b/.test(arg))) return false;
  setFlags("--no-regexp-tier-up");
  return true;
}
