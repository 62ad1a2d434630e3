import type { OpenCodeHooks } from "./plugin.mjs";
export declare const LittleCanaryPlugin: (input: { client?: unknown }) => Promise<OpenCodeHooks>;
