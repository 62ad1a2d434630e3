// `npm run fixture:tiny-gguf -- OUT [--context-length N] [--endless]`: writes the tiny test model
// of scripts/tiny-gguf-model.ts to OUT and prints its SHA-256 (the value `--canary-sha256`
// takes), so anyone can reproduce the model the embedded-canary tests load. The file is
// generated, never committed; it is not a language model (see docs/embedded.md).
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { tinyGguf } from "./tiny-gguf-model.js";

const args = process.argv.slice(2);
let out: string | undefined;
let contextLength: number | undefined;
let endless = false;
for (let i = 0; i < args.length; i++) {
  const arg = args[i] as string;
  if (arg === "--context-length") contextLength = Number(args[++i]);
  else if (arg === "--endless") endless = true;
  else if (out === undefined && !arg.startsWith("--")) out = arg;
  else out = "";
}
if (out === undefined || out === "" || (contextLength !== undefined && !Number.isSafeInteger(contextLength))) {
  process.stderr.write("usage: npm run fixture:tiny-gguf -- OUT [--context-length N] [--endless]\n");
  process.exit(2);
}
const bytes = tinyGguf({ ...(contextLength !== undefined ? { contextLength } : {}), reply: endless ? "endless" : "short" });
// npm runs scripts from the package root; INIT_CWD is where `npm run` was typed.
writeFileSync(resolve(process.env.INIT_CWD ?? process.cwd(), out), bytes);
process.stdout.write(`${createHash("sha256").update(bytes).digest("hex")}  ${out}\n`);
