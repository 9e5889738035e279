/** `--backend local` for any command: the local backend already listening on the port, else one started in this process. */
import { resolve } from "node:path";
import { localBackendDir } from "../core/eval/backends";

export async function localBackendFor(workspaceDir: string, port = 8765) {
  const { connectOrStartLocalBackend, STAND_IN_NOTICE } = await import("../server");
  const handle = await connectOrStartLocalBackend({ port, dir: localBackendDir(resolve(workspaceDir)) });
  console.log(`${handle.started ? "started" : "using"} the local backend at ${handle.url} (${STAND_IN_NOTICE})`);
  return handle;
}
