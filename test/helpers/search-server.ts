/** What the search-over-HTTP tests share: the refusal's hint they expect, and a port nobody serves. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** The end of every one-line refusal about a search server that cannot be used. */
export const START_HINT =
  'start it with "agent-lab serve-search --index DIR", or point searchUrl (--search-url) at a running one';

/** A port nothing listens on: one the system just handed out and took back. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
