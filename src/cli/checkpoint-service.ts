/**
 * The service that holds a workspace's checkpoints, for `agent-lab ckpt <verb>` and `spend --tinker`:
 * the workspace's local backend (the one on its port when that serves this workspace's folder, else
 * one started in this process on a free port for the one command) or Tinker (TINKER_API_KEY). Without --backend, a checkpoint whose training run is in the
 * workspace's local backend folder is local; anything else is Tinker's.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { TinkerService } from "../core/base/tinker";
import { localBackendDir, LOCAL_BACKEND_KEY } from "../core/steps/eval/backends";
import type { LocalBackendHandle } from "../core/base/tinker/local-backend";
import { startLocalBackend } from "./local-backend";

export type ServiceName = "local" | "tinker";

export interface CheckpointServiceConnection {
  service: TinkerService;
  backend: ServiceName;
  /** Stops the heartbeat, and the local backend when this command started it. */
  close(): Promise<void>;
}

/** The backend to use: the flag, else local when the workspace's local backend has `runId` (or, without one, exists at all). */
export async function chooseBackend(
  flag: string | undefined,
  workspaceDir: string,
  runId: string | undefined,
): Promise<ServiceName> {
  if (flag === "local" || flag === "tinker") return flag;
  const dir = localBackendDir(resolve(workspaceDir));
  if (runId === undefined) return existsSync(dir) ? "local" : "tinker";
  const { localStoreHasRun } = await import("../server");
  return localStoreHasRun(dir, runId) ? "local" : "tinker";
}

export async function connectCheckpointService(
  backend: ServiceName,
  workspaceDir: string,
  port: number,
): Promise<CheckpointServiceConnection> {
  if (backend === "tinker") {
    const service = new TinkerService();
    return {
      service,
      backend,
      close: async () => service.close(),
    };
  }
  const dir = localBackendDir(resolve(workspaceDir));
  const { localBackendAt, localStoreId } = await import("../server");
  const url = `http://127.0.0.1:${port}`;
  const reused: LocalBackendHandle | undefined =
    (await localBackendAt(url))?.storeId === localStoreId(dir)
      ? { url, started: false, close: async () => undefined }
      : undefined;
  // Another workspace's backend may hold the port: then this command serves its own folder on a free port.
  const handle = reused ?? (await startLocalBackend({ port: 0, dir, seed: 0 }));
  const service = new TinkerService({ apiKey: LOCAL_BACKEND_KEY, baseUrl: handle.url });
  return {
    service,
    backend,
    close: async () => {
      service.close();
      if (handle.started) await handle.close();
    },
  };
}
