// Log lines of the service: `<ISO time> [<LEVEL>] <message>`, to stderr from the CLI and nowhere by
// default in the library. Messages hold fixed text, configuration and error class names only.

export type LogLevel = "INFO" | "WARNING" | "ERROR";
export type ServerLog = (level: LogLevel, message: string) => void;

export const silentLog: ServerLog = () => {};

export function streamLog(stream: { write(text: string): unknown }, now: () => Date = () => new Date()): ServerLog {
  return (level, message) => {
    stream.write(`${now().toISOString()} [${level}] ${message}\n`);
  };
}

/** Class name of a thrown value, never its message (which could quote input or a reply). */
export function errorClass(error: unknown): string {
  if (typeof error !== "object" || error === null) return "Error";
  const name = (error as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && /^[A-Za-z_$][\w$]{0,63}$/.test(name) ? name : "Error";
}
