/** `--backend local` for any command: the local backend already listening on the port, else one started in this process. */
import { resolve } from "node:path";
import { localBackendDir } from "../core/steps/eval/backends";
import { LOCAL_BACKEND_PROCESS_TITLE, type StartLocalBackend } from "../core/base/tinker/local-backend";

/**
 * Called once this process listens as the local backend: titles it so a remote VS Code's port
 * detection ignores it (see LOCAL_BACKEND_PROCESS_TITLE), instead of offering its port in a browser.
 */
export function markLocalBackendProcess(): void {
  process.title = LOCAL_BACKEND_PROCESS_TITLE;
}

export async function localBackendFor(workspaceDir: string, port = 8765) {
  const { connectOrStartLocalBackend, STAND_IN_NOTICE } = await import("../server");
  const handle = await connectOrStartLocalBackend({ port, dir: localBackendDir(resolve(workspaceDir)) });
  if (handle.started) markLocalBackendProcess();
  console.log(`${handle.started ? "started" : "using"} the local backend at ${handle.url} (${STAND_IN_NOTICE})`);
  return handle;
}

/** The server's start-or-reuse, loaded only when a step asks for it (most commands never start one). */
export const startLocalBackend: StartLocalBackend = async (o) => {
  const handle = await (await import("../server")).connectOrStartLocalBackend(o);
  if (handle.started) markLocalBackendProcess();
  return handle;
};
