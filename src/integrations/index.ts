/**
 * The `little-canary/integrations` entry: the host classifier every adapter decides with, the
 * in-process OpenAI Agents guardrail, the host capability matrix, and the host adapters
 * themselves (the same sources scripts/build-integrations.ts bundles into integrations/<host>/),
 * for a program that wants to wire a host hook with its own environment, logger or deadline.
 */
export {
  classifyForHost,
  classifyVerdict,
  unscreenedForHost,
  parseFailureMode,
  FAILURE_MODE_ENV,
  INVALID_FAILURE_MODE,
  REASON_MISSING_FIELDS,
  REASON_NOT_EXERCISED,
  type HostDecision,
  type HostClassification,
  type FailureMode,
  type FailureModeParse,
  type UnscreenedCause,
} from "./classify.js";
export {
  littleCanaryInputGuardrail,
  extractUserText,
  CHECKER_FAILED_SUMMARY,
  NOTHING_TO_SCREEN_SUMMARY,
  type GuardrailChecker,
  type LittleCanaryInputGuardrail,
  type LittleCanaryGuardrailOptions,
  type LittleCanaryGuardrailOutput,
  type LittleCanaryGuardrailInfo,
  type GuardrailCoverage,
} from "./openai-agents.js";
export {
  HostCapabilityMatrixSchema,
  renderIntegrationsDoc,
  type HostCapabilityMatrix,
  type HostCapability,
} from "./capability-matrix.js";
export {
  parseCheckEndpoint,
  parseServiceOrigin,
  DEFAULT_CHECK_ENDPOINT,
  DEFAULT_SERVICE_ORIGIN,
  type ServiceEndpoint,
  type EndpointParse,
} from "./adapter/config.js";
export { HOOK_TIMEOUT_LIMITS, readAdapterEnv, type AdapterEnv, type AdapterConfig, type TimeoutLimits } from "./adapter/config.js";
export { createScreener, type Screen, type ScreenResult, type ScreenerOptions } from "./adapter/screener.js";
export {
  runCommandHook,
  decideHook,
  NOTHING_TO_SCREEN,
  type CommandHookOptions,
  type HookAnswer,
  type HookDecision,
  type HookRenderer,
} from "./adapter/command-hook.js";
export { renderClaudeCode, CLAUDE_CODE_NOTHING_TO_SCREEN } from "./claude-code/output.js";
export { renderGeminiCli, GEMINI_CLI_NOTHING_TO_SCREEN } from "./gemini-cli/output.js";
export { createOpenCodeHooks, type OpenCodeHooks, type OpenCodeHookOptions } from "./opencode/plugin.js";
export { createInputHandler, type PiAction, type PiHandlerOptions, type PiInputHandler } from "./pi/plugin.js";
export {
  createBeforeAgentRunHandler,
  type BeforeAgentRunHandler,
  type OpenClawHandlerOptions,
  type OpenClawResult,
} from "./openclaw/plugin.js";
