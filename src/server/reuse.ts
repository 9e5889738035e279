/**
 * Start-or-reuse for commands like `agent-lab eval --backend local`: if a local backend already
 * listens on the port (e.g. `agent-lab serve-local` in another terminal), use it; otherwise start
 * one in this process and stop it when the caller is done.
 */
import { startLocalBackend, type LocalBackendOptions } from "./http-server";

export interface LocalBackendHandle {
  url: string;
  /** True when this call started the server (close() stops it); false when it reused one. */
  started: boolean;
  close(): Promise<void>;
}

/** True when a local backend (not some other server) answers at this URL. */
export async function isLocalBackend(url: string, timeoutMs = 1_000): Promise<boolean> {
  try {
    const res = await fetch(`${url}/api/v1/get_server_capabilities`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return false;
    const body = (await res.json()) as { local_stand_in?: unknown };
    return body.local_stand_in === true;
  } catch {
    return false;
  }
}

export async function connectOrStartLocalBackend(options: LocalBackendOptions & { port: number }): Promise<LocalBackendHandle> {
  const url = `http://127.0.0.1:${options.port}`;
  if (options.port > 0 && (await isLocalBackend(url))) return { url, started: false, close: async () => {} };
  const running = await startLocalBackend(options);
  return { url: running.url, started: true, close: () => running.close() };
}
