// Limits and defaults of the loopback screening service (docs/serve.md).
// Stated once here so the request ladder, the CLI flags and the docs agree.

/** Largest accepted `/check` request body, measured on the whole JSON envelope. */
export const MAX_REQUEST_BYTES = 65536;

/** Only address the service ever binds: it screens raw text and must not face a network. */
export const BIND_HOST = "127.0.0.1";

export const DEFAULT_PORT = 18421;

/** Pending-connection queue requested from the OS (Linux caps it at net.core.somaxconn). */
export const LISTEN_BACKLOG = 4096;

/** Canary checks running at once; a local Ollama rarely serves more in parallel. */
export const DEFAULT_MAX_CONCURRENT = 4;

/** Checks waiting for a slot; beyond this a request is answered 503 with Retry-After. */
export const DEFAULT_MAX_QUEUE = 64;

/** Deadline for a client to deliver its body, once its headers are in (milliseconds). */
export const DEFAULT_READ_TIMEOUT_MS = 10_000;

/**
 * Deadline for a client to deliver its request headers (milliseconds; capped by the read
 * timeout). A loopback client sends them in one packet; a slower one is stalling.
 */
export const DEFAULT_HEADERS_TIMEOUT_MS = 5_000;

/** How long a kept-alive connection may sit idle between requests (milliseconds). */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 2_000;

/** How long a `/health` readiness result is served before it is refreshed in the background. */
export const DEFAULT_HEALTH_TTL_MS = 5_000;

/**
 * Open connections at once; each holds at most one body, 64 KiB for `/check` and 1 MiB for
 * `/screen` (check-request.ts), so the default cap bounds bodies in memory at about 320 MiB
 * (a quarter more connections for one turn, see connection-limiter.ts). At the cap the oldest
 * idle or stalled connection is closed to admit the new one.
 */
export const DEFAULT_MAX_CONNECTIONS = 256;

/** Seconds suggested to a client that met a full queue. */
export const RETRY_AFTER_SECONDS = 1;
