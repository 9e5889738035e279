import { createServer, type AddressInfo } from "node:net";
/** The server's start-or-reuse, for tests that run core steps with `--backend local` (the CLI passes the same). */
export { connectOrStartLocalBackend as startLocalBackend } from "../../src/server/reuse";

/** A port nothing listens on now: the OS's pick for a server closed at once. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
