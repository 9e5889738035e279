/** `--backend local` for any command: the local backend already listening on the port, else one started in this process. */
import { resolve } from "node:path";

export async function localBackendFor(workspaceDir: string, port = 8765) {
  const { connectOrStartLocalBackend, STAND_IN_NOTICE } = await import("../server");
  // The same folder as `agent-lab serve-local`'s default, so checkpoints from either are found by both.
  const handle = await connectOrStartLocalBackend({ port, dir: resolve(workspaceDir, ".cache", "local-backend") });
  console.log(`${handle.started ? "started" : "using"} the local backend at ${handle.url} (${STAND_IN_NOTICE})`);
  return handle;
}
