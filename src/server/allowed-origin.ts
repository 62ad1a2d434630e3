// One `--allow-origin` entry as the origin the service compares a request's `Origin` with
// (caller-origin.ts). A leaf module: the command line checks the flag when it defines `serve`,
// before it knows which command runs, and should not load the HTTP server's modules for that.
import { parseUrl } from "../core/guards.js";

/**
 * Normalises one allow-list entry to its origin (`scheme://host[:port]`, lowercase, default port
 * dropped), or returns null when it is not an http(s) origin without user info, path, query or
 * fragment.
 */
export function normalizeAllowedOrigin(raw: string): string | null {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 2048 || /[\s\\]/u.test(raw)) return null;
  const url = parseUrl(raw);
  if (url === null) return null;
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username !== "" || url.password !== "") return null;
  if (url.search !== "" || url.hash !== "" || raw.includes("?") || raw.includes("#")) return null;
  if (url.pathname !== "/" || /^[a-z]+:\/\/[^/]+\/./iu.test(raw)) return null;
  return url.origin;
}
