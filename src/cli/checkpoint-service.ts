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
import { startLocalBackend } from "./local-backend";

export type ServiceName = "local" | "tinker";

export interface CheckpointServiceConnection {
  service: TinkerService;
  backend: ServiceName;
  /** Stops the heartbeat; gives back the lease on a reused local backend, or stops the one this command started. */
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
  const { reuseLocalBackend } = await import("../server");
  // The workspace's backend on its port, leased (its starter stops it only after this command);
  // else this command's own on a free port (another workspace's may hold the port), stopped with it.
  const handle = (await reuseLocalBackend(dir, port)) ?? (await startLocalBackend({ port: 0, dir, seed: 0 }));
  const service = new TinkerService({ apiKey: LOCAL_BACKEND_KEY, baseUrl: handle.url });
  return {
    service,
    backend,
    close: async () => {
      service.close();
      await handle.close();
    },
  };
}
