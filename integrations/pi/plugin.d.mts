// Types for plugin.mjs (Pi input handler).
export declare const CONTINUE: { readonly action: "continue" };
export declare const HANDLED: { readonly action: "handled" };
export declare function createInputHandler(options?: {
  env?: Record<string, string | undefined>;
  stderr?: { write(s: string): unknown };
  timeoutMs?: number;
}): (event: any, ctx: any) => Promise<{ action: "continue" | "handled" }>;
