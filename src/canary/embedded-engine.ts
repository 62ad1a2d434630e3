// The one door to node-llama-cpp, the embedded canary's optional peer dependency: only `loadEmbeddedEngine`'s lazy
// `import()` of a variable specifier loads it (so the build needs no types of it); a missing package is a ConfigError
// with the install lines. The types below are the part of its API this library uses.
import { LittleCanaryError } from "../core/errors.js";

/** The node-llama-cpp release this library is tested with, named by the install lines; scripts/embedded-install.mjs reads it from this line, its one place. */
export const EMBEDDED_ENGINE_VERSION = "3.21.1";
/** The releases it runs with (package.json's optional peer): from the tested one up to the next major, which may break; so a newer 3.x resolves too. */
export const EMBEDDED_ENGINE_RANGE = `>=${EMBEDDED_ENGINE_VERSION} <4`;
/** The package name; kept in a variable so no bundler or compiler resolves it at build time. */
const ENGINE_PACKAGE = "node-llama-cpp";

/** A llama.cpp token id. */
export type EngineToken = number & { readonly __token?: never };

/** One sequence of a context: its own token history, evaluated independently of the others. */
export interface EngineSequence {
  readonly contextSize: number;
  evaluate(tokens: EngineToken[], options: { readonly temperature: number; readonly seed?: number }): AsyncGenerator<EngineToken, void, unknown>;
  clearHistory(): Promise<void>;
  dispose(): void;
}

/** A context: `sequences` independent sequences of `contextSize` tokens each. */
export interface EngineContext {
  readonly contextSize: number;
  getSequence(): EngineSequence;
  dispose(): Promise<void>;
}

/** A loaded model. */
export interface EngineModel {
  readonly trainContextSize: number;
  readonly tokenizer: (text: string, specialTokens?: boolean) => EngineToken[];
  detokenize(tokens: readonly EngineToken[], specialTokens?: boolean): string;
  isEogToken(token: EngineToken | undefined): boolean;
  createContext(options: { contextSize: number; sequences: number; threads: number; batchSize?: number }): Promise<EngineContext>;
  dispose(): Promise<void>;
}

/** A model's chat wrapper: renders a conversation as its chat template does (a text its model tokenizes). */
export interface EngineChatWrapper {
  generateContextState(options: { chatHistory: readonly unknown[] }): { contextText: { tokenize(tokenizer: EngineModel["tokenizer"]): EngineToken[] } };
}

/** The llama.cpp binding. */
export interface EngineLlama {
  loadModel(options: { modelPath: string; useMmap?: boolean; gpuLayers?: "auto" | number }): Promise<EngineModel>;
  dispose(): Promise<void>;
}

/** The part of the node-llama-cpp module the embedded canary calls. */
export interface EmbeddedEngineModule {
  getLlama(options: { gpu: "auto" | false; build: "never"; logLevel?: string; progressLogs?: boolean }): Promise<EngineLlama>;
  resolveChatWrapper(model: EngineModel): EngineChatWrapper;
  getModuleVersion?: () => Promise<string>;
}

/** Imports the engine module; tests inject one that fails or a stand-in. */
export type EngineModuleLoader = () => Promise<unknown>;

/** The default loader: the lazy `import()`, the only place this library touches node-llama-cpp. */
export const importEmbeddedEngine: EngineModuleLoader = () => import(ENGINE_PACKAGE);

/** The npm platform packages that carry the prebuilt CPU binary, by `${platform}-${arch}`. */
const PLATFORM_PACKAGES: Readonly<Record<string, string>> = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "linux-arm": "linux-armv7l",
  "darwin-arm64": "mac-arm64-metal",
  "darwin-x64": "mac-x64",
  "win32-x64": "win-x64",
  "win32-arm64": "win-arm64",
};

/** The install lines printed when the engine is missing (docs/embedded.md explains both). */
export function engineInstallLines(platform: string = process.platform, arch: string = process.arch): string {
  const pkg = PLATFORM_PACKAGES[`${platform}-${arch}`];
  const small =
    pkg === undefined
      ? ""
      : `  npm i node-llama-cpp@${EMBEDDED_ENGINE_VERSION} @node-llama-cpp/${pkg}@${EMBEDDED_ENGINE_VERSION} --omit=optional   (prebuilt binary for this machine only, about 83 MB)\n`;
  return `${small}  npm i node-llama-cpp@${EMBEDDED_ENGINE_VERSION}   (every prebuilt binary, CUDA and Vulkan included, about 730 MB)`;
}

/** The engine is not installed (or could not be loaded); the message carries the install lines. */
export class EmbeddedEngineMissingError extends LittleCanaryError {
  override readonly name = "EmbeddedEngineMissingError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("config", message, options);
  }
}

function looksLikeEngine(value: unknown): value is EmbeddedEngineModule {
  const m = value as Partial<EmbeddedEngineModule> | null;
  return typeof m === "object" && m !== null && typeof m.getLlama === "function" && typeof m.resolveChatWrapper === "function";
}

/** `major.minor.patch` of a release string (a pre-release suffix is ignored), or null when it is not one. */
function releaseNumbers(version: string): [number, number, number] | null {
  const match = /^v?(\d{1,9})\.(\d{1,9})\.(\d{1,9})(?:[-+][0-9A-Za-z.+-]{0,64})?$/.exec(version);
  return match === null ? null : [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Whether a node-llama-cpp release lies in EMBEDDED_ENGINE_RANGE (false for a string that is not a release). */
export function engineVersionSupported(version: string): boolean {
  const numbers = releaseNumbers(version);
  if (numbers === null) return false;
  const [major, minor, patch] = numbers;
  const [lowMajor, lowMinor, lowPatch] = releaseNumbers(EMBEDDED_ENGINE_VERSION) as [number, number, number];
  // From the tested release up to the next major.
  return major === lowMajor && (minor - lowMinor || patch - lowPatch) >= 0;
}

/** The engine module from `loader`, or EmbeddedEngineMissingError with the install lines (missing, failing, another API, or a version outside EMBEDDED_ENGINE_RANGE). */
export async function loadEmbeddedEngine(loader: EngineModuleLoader = importEmbeddedEngine): Promise<EmbeddedEngineModule> {
  let loaded: unknown;
  try {
    loaded = await loader();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const why = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" ? "is not installed" : "could not be loaded";
    const message = `--canary embedded needs node-llama-cpp ${EMBEDDED_ENGINE_VERSION}, which ${why}; install it with\n${engineInstallLines()}`;
    throw new EmbeddedEngineMissingError(message, { cause: error });
  }
  const module =
    (loaded as { default?: unknown } | null)?.default !== undefined && !looksLikeEngine(loaded) ? (loaded as { default: unknown }).default : loaded;
  if (!looksLikeEngine(module)) {
    throw new EmbeddedEngineMissingError(
      `the installed node-llama-cpp does not offer the API of ${EMBEDDED_ENGINE_VERSION}; install it with\n${engineInstallLines()}`,
    );
  }
  // The installed engine's version, checked against the range: outside it is refused (an older one lacks what the tested release has, a
  // new major may change the API); a newer 3.x passes silently, the manifest records `engine_version`; none (a stand-in) is "unknown".
  const version = await module.getModuleVersion?.().catch(() => null);
  if (typeof version !== "string" || engineVersionSupported(version)) return module;
  // Shown only when it is a plain release string; anything else is named, never echoed.
  const shown = releaseNumbers(version) !== null && version.length <= 64 ? version : "of an unrecognised version";
  throw new EmbeddedEngineMissingError(
    `--canary embedded needs node-llama-cpp ${EMBEDDED_ENGINE_RANGE}, but the installed one is ${shown}; install the tested release with\n${engineInstallLines()}`,
  );
}
