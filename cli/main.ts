#!/usr/bin/env node
// Executable entry point: the only place that touches process exit state.
import { runMain } from "./program.js";

process.exitCode = await runMain(process.argv.slice(2));
