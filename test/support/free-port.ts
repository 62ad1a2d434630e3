// A loopback port that nothing listens on, for "connection refused" tests: bind port 0, read the
// number the OS chose, close. Another process could take it in between; on a test machine that
// window is small enough, and the port is only ever used for a refused connection.
import { createServer } from "node:net";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (port === 0) throw new Error("could not obtain a free loopback port");
  return port;
}

/** `http://127.0.0.1:<port>` where nothing listens. */
export async function refusedUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}
