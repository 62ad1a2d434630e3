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
