/** `--backend local` for any command: the local backend already listening on the port, else one started in this process. */
import { resolve } from "node:path";
import { localBackendDir } from "../core/steps/eval/backends";
import type { StartLocalBackend } from "../core/base/tinker/local-backend";

export async function localBackendFor(workspaceDir: string, port = 8765) {
  const { connectOrStartLocalBackend, STAND_IN_NOTICE } = await import("../server");
  const handle = await connectOrStartLocalBackend({ port, dir: localBackendDir(resolve(workspaceDir)) });
  console.log(`${handle.started ? "started" : "using"} the local backend at ${handle.url} (${STAND_IN_NOTICE})`);
  return handle;
}

/** The server's start-or-reuse, loaded only when a step asks for it (most commands never start one). */
export const startLocalBackend: StartLocalBackend = async (o) =>
  (await import("../server")).connectOrStartLocalBackend(o);
