// CanaryResult construction shared by both probes: latency measured from the start of a call,
// `response` empty and `success` false whenever there is a failure code, so a failed canary
// can never carry reply text or look like a pass.
import type { CanaryFailureCode, CanaryMetadata, CanaryResult } from "./types.js";

export interface CanaryResultBuilder {
  success(response: string, metadata: CanaryMetadata): CanaryResult;
  failure(failureCode: CanaryFailureCode, error: string, metadata?: CanaryMetadata, httpStatus?: number): CanaryResult;
}

/** Starts the latency clock of one probe call for `model`. */
export function startCanaryResult(model: string, now: () => number): CanaryResultBuilder {
  const started = now();
  const latency = (): number => Math.max(0, (now() - started) / 1000);
  return {
    success: (response, metadata) => ({ response, latency: latency(), model, success: true, error: null, failureCode: null, metadata }),
    failure: (failureCode, error, metadata = {}, httpStatus) => {
      const failed: CanaryResult = { response: "", latency: latency(), model, success: false, error, failureCode, metadata };
      return httpStatus === undefined ? failed : { ...failed, httpStatus };
    },
  };
}
