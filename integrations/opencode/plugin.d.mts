// Types for plugin.mjs (OpenCode hooks).
export declare const WITHHELD_REJECTED: string;
export declare const WITHHELD_UNSCREENED: string;
export declare const CANNOT_BLOCK: string;
export declare function promptText(parts: unknown): string;
export declare function toolText(output: unknown): string;
export interface OpenCodeHooks {
  "chat.message"(input: unknown, output: any): Promise<void>;
  "tool.execute.after"(input: unknown, output: any): Promise<void>;
}
export declare function createOpenCodeHooks(options?: {
  client?: unknown;
  env?: Record<string, string | undefined>;
  stderr?: { write(s: string): unknown };
  timeoutMs?: number;
}): OpenCodeHooks;
