// The hint in a canary warning fits the failure: a timeout asks for a larger --timeout (naming
// the current one) or a server that is up, a missing model for a pull, an unreachable server for starting it.
import { describe, expect, it } from "vitest";
import { canaryOutageWarning, canaryReplyWarning, circuitOpenWarning, type CanaryTarget } from "../../src/pipeline/canary-warning.js";

const ollama: CanaryTarget = { provider: "ollama", url: "http://127.0.0.1:11434", model: "qwen2.5:1.5b", timeoutSeconds: 600 };
const openai: CanaryTarget = { provider: "openai", url: "http://127.0.0.1:8000", model: "gpt-4o-mini", timeoutSeconds: 30 };

describe("the fix a canary warning gives", () => {
  it("a timeout (a slow server or one that never accepted the connection, which it cannot tell apart) asks for a larger --timeout, naming the current value, or a check that the server is up; never to install Ollama", () => {
    const line = canaryOutageWarning({ ...ollama, timeoutSeconds: 2.5 }, "timeout", { count: 3, words: "3 items of 3" });
    expect(line).toBe(
      "warning: canary at http://127.0.0.1:11434 (model qwen2.5:1.5b) did not answer before the timeout for 3 items of 3: timeout; the canary did not screen them; " +
        "fix: if the canary is slow, raise --timeout (now 2.5s) (a CPU canary may need several minutes per check); " +
        "if not, check that the server is running and that nothing drops the connection on the way\n",
    );
    expect(line).not.toMatch(/install|ollama pull|answered/);
  });

  it("a reply that came but could not be used is warned about too, with a fix by its reason; an HTTP error still points at the address", () => {
    expect(canaryReplyWarning(ollama, "empty_response", { count: 2, words: "2 items of 5" })).toBe(
      "warning: canary at http://127.0.0.1:11434 (model qwen2.5:1.5b) answered, but its reply could not be used (empty_response) for 2 items of 5; " +
        "the canary did not screen them; fix: the model replied with nothing: try it by hand (ollama run qwen2.5:1.5b) or choose another --canary-model\n",
    );
    expect(canaryReplyWarning(openai, "empty_response")).not.toContain("ollama run");
    expect(canaryReplyWarning(ollama, "output_limit")).toContain("fix: the reply ended before it was complete");
    expect(canaryReplyWarning(openai, "context_unverified")).toContain("fix: the canary did not show it read the whole prompt");
    expect(canaryReplyWarning(ollama, "probe_exception")).toContain("fix: run again");
    expect(canaryReplyWarning(ollama, "http_error")).toContain("answered, but not as Ollama does (http_error)");
  });

  it("an HTTP error from a server that listed its models before the run is its own failure, not a sign of another service", () => {
    const listed = { ...ollama, modelListed: true };
    const line = canaryReplyWarning(listed, "http_error", { count: 5, words: "5 items of 33" });
    expect(line).toBe(
      "warning: canary at http://127.0.0.1:11434 (model qwen2.5:1.5b) answered with an HTTP error status (http_error) for 5 items of 33; " +
        "the canary did not screen them; fix: the server listed its models before the run, so it failed these calls itself: see its log (out of memory, a model that failed to load) (docs/troubleshooting.md)\n",
    );
    expect(line).not.toContain("--ollama-url");
    // A body of another shape still says the address may be wrong.
    expect(canaryReplyWarning(listed, "invalid_response")).toContain("answered, but not as Ollama does (invalid_response)");
  });

  it("says the canary did not screen 'it' for one text and 'them' for more", () => {
    expect(canaryOutageWarning(ollama, "timeout")).toContain("; the canary did not screen it; ");
    expect(canaryOutageWarning(ollama, "timeout", { count: 1, words: "1 item of 3" })).toContain("; the canary did not screen it; ");
    expect(canaryOutageWarning(ollama, "timeout", { count: 2, words: "2 items of 3" })).toContain("; the canary did not screen them; ");
    expect(canaryReplyWarning(ollama, "empty_response", { count: 3, words: "3 items of 3 (1 of them blocked all the same)" })).toContain(
      "; the canary did not screen them; ",
    );
  });

  it("a text too long to send is not called a reply, and its fix is a shorter text, not another run", () => {
    const line = canaryReplyWarning(ollama, "input_too_long", { count: 1, words: "1 item of 3" });
    expect(line).toBe(
      "warning: a text needs more canary windows than one check screens (input_too_long) for 1 item of 3, so it was not sent to the canary at http://127.0.0.1:11434; " +
        "the canary did not screen it; fix: split the text into smaller texts (the library's maxSegments option raises the limit; docs/canary.md)\n",
    );
    expect(line).not.toMatch(/answered|run again/);
  });

  it("a missing model asks for ollama pull of that model (OpenAI-compatible: serve it or change --canary-model)", () => {
    expect(canaryOutageWarning(ollama, "model_not_found")).toBe(
      "warning: canary model qwen2.5:1.5b is not available at http://127.0.0.1:11434: model_not_found; the canary did not screen it; fix: ollama pull qwen2.5:1.5b\n",
    );
    expect(canaryOutageWarning(openai, "model_not_found")).toContain("fix: serve that model there, or give --canary-model one it serves\n");
  });

  it("an unreachable server asks to start it or point --ollama-url (--base-url) elsewhere, naming the cause when known", () => {
    expect(canaryOutageWarning({ ...ollama, unreachableCause: "connection refused" }, "unavailable")).toBe(
      "warning: canary at http://127.0.0.1:11434 is not reachable (connection refused): unavailable; the canary did not screen it; fix: start it (ollama serve) or pass --ollama-url\n",
    );
    expect(canaryOutageWarning(openai, "unavailable")).toBe(
      "warning: canary at http://127.0.0.1:8000 is not reachable: unavailable; the canary did not screen it; fix: start the server or pass --base-url\n",
    );
  });

  it("replies that failed for several reasons are not all called HTTP errors; the most common reason's fix stays", () => {
    const listed = { ...ollama, modelListed: true };
    const mixed = canaryReplyWarning(listed, "http_error", { count: 5, words: "5 items of 6 (http_error 3, output_limit 1, empty_response 1)", mixed: true });
    expect(mixed).toBe(
      "warning: canary at http://127.0.0.1:11434 (model qwen2.5:1.5b) answered, but its reply could not be used (http_error) for 5 items of 6 (http_error 3, output_limit 1, empty_response 1); the canary did not screen them; fix: the server listed its models before the run, so it failed these calls itself: see its log (out of memory, a model that failed to load) (docs/troubleshooting.md)\n",
    );
    expect(canaryReplyWarning(listed, "http_error", { count: 3, words: "3 items of 6" })).toContain(
      "answered with an HTTP error status (http_error) for 3 items of 6",
    );
    expect(canaryReplyWarning(ollama, "invalid_response", { count: 2, words: "2 items of 6 (invalid_response 1, empty_response 1)", mixed: true })).toContain(
      "answered, but its reply could not be used (invalid_response) for 2 items of 6 (invalid_response 1, empty_response 1); the canary did not screen them; fix: check that --ollama-url is Ollama serving that model",
    );
  });

  it("the circuit-open warning counts the items whose own check failed beside those never sent", () => {
    const trip = { failures: 5, answeredBefore: 0, reason: "timeout" as const };
    expect(circuitOpenWarning(ollama, trip, "3 items of 9", "5 items whose check failed (timeout 5)")).toContain(
      "stopped sending checks, 3 items of 9 not screened by the canary (error canary_circuit_open), and 5 items whose check failed (timeout 5); ",
    );
  });

  it("the circuit-open warning of a canary that never answered gives the same hint as its reason", () => {
    const trip = { failures: 5, answeredBefore: 0 };
    expect(circuitOpenWarning(ollama, { ...trip, reason: "timeout" }, "10 items of 12")).toContain("fix: if the canary is slow, raise --timeout (now 600s)");
    expect(circuitOpenWarning(ollama, { ...trip, reason: "model_not_found" }, "10 items of 12")).toContain("fix: ollama pull qwen2.5:1.5b\n");
    // Tripped by the last checks: nothing was left unsent, and the line does not count "0 items".
    const none = circuitOpenWarning(ollama, { ...trip, reason: "unavailable" }, null);
    expect(none).toContain("stopped sending checks, but every check had already been sent; ");
    expect(none).not.toContain("not screened by the canary");
    expect(circuitOpenWarning(ollama, { ...trip, reason: "unavailable" }, "10 items of 12")).toContain("fix: start it (ollama serve) or pass --ollama-url\n");
    expect(circuitOpenWarning(ollama, { failures: 5, answeredBefore: 3, reason: "model_not_found" }, "7 items of 12")).toContain(
      "it had answered 3 checks earlier in this run, so the model was removed mid-run: fix: ollama pull qwen2.5:1.5b\n",
    );
  });
});
