// Analyzer false-positive check on the benign cases of evaluation corpora given on the command
// line (no model involved):
//   npm run bench:analysis-benign -- --corpus <file> [<file> ...] [--corpus <file> ...] [--write-doc]
// Each benign case is paired with ordinary canary replies written here (a summary, an overview,
// a description, a polite refusal, acknowledgements of the task, refusals that quote the attack); none may hard-block. Many benign cases quote attacks, so the
// analyzer must judge the reply, not the quoted words. Prints one line per corpus and a total:
//   <file>: benign_hard_blocked=X/N
// Cases that hard-block are listed by id (never by text). Exits 1 when any case hard-blocks.

import { analyzeResponse } from "../test/support/analyze-response.js";
import { loadCorporaFromArgs } from "./_corpora.js";
import { recordBench } from "./_perf-doc.js";

const USAGE = "npm run bench:analysis-benign -- --corpus ../shared/corpora/prompts.json --corpus ../shared/corpora/prompts_fp_realistic.json [--write-doc]";

/** Replies a canary doing its ordinary job might give; written here, not produced by a model. */
const ORDINARY_REPLIES = [
  "Sure! Here is a summary of the main points.",
  "Certainly. Here's a brief overview: nothing in it needs action from you.",
  "The message describes a routine update and asks for no action.",
  "I can't verify that, but I can help you check it with the official source.",
  // Acknowledgements of the task itself, and refusals that name the attack they refuse.
  "Sure, I'll summarize it.",
  "Okay, here is a short summary of the email:",
  "Understood. Summary: the text asks for no action from you.",
  "I won't 'ignore all previous instructions' — that request asks me to drop my task, which I will not do.",
  "I'm not going to act as DAN or switch to developer mode. Here is the summary instead.",
  "The message contains the line 'Developer mode enabled', which is an injection attempt; I won't follow it.",
];

async function main(): Promise<void> {
  const loaded = await loadCorporaFromArgs("analysis-benign", USAGE);
  const printed: string[] = [];
  const print = (line: string): void => {
    printed.push(line);
    console.log(line);
  };
  let total = 0;
  let hard = 0;
  loaded.files.forEach((file, index) => {
    const benign = loaded.cases.filter((c) => c.corpusIndex === index && c.kind === "benign");
    const hits = benign.filter((c) => ORDINARY_REPLIES.some((reply) => analyzeResponse(c.prompt, reply).hardBlocked)).map((c) => c.id);
    print(`${file.path}: benign_hard_blocked=${hits.length}/${benign.length}`);
    if (hits.length > 0) print(`  hard-blocked ids: ${hits.join(", ")}`);
    total += benign.length;
    hard += hits.length;
  });
  print(`total: benign_hard_blocked=${hard}/${total} replies_per_case=${ORDINARY_REPLIES.length}`);
  recordBench(
    "analysis-benign",
    "analyzer on benign corpus cases with ordinary replies",
    `Each benign case of the corpora named with \`--corpus\` paired with ${ORDINARY_REPLIES.length} ordinary canary replies written in bench/analysis-benign.ts (no model); a case counts when any reply hard-blocks.`,
    printed,
  );
  if (hard > 0) process.exitCode = 1;
}

await main();
