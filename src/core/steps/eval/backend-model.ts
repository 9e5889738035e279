/**
 * Which model a backend samples from, as its runs' manifests name it: light (no policy code), so
 * the prompt's code lens names the model the workspace's jobs will use, not always the config's.
 */
import type { AgentLabConfig } from "../../base/config";
import type { SAMPLING_BACKENDS } from "../specs/common-flags";

export type BackendName = (typeof SAMPLING_BACKENDS)[number];

/** The name the local stand-in's model goes by in manifests: never a real model's id. */
export const LOCAL_BACKEND_MODEL = "agent-lab/local-tiny";

/** What the scripted reader calls itself in manifests. */
export const SCRIPTED_MODEL = "scripted";

/** Backends that run on this machine: they cost nothing. */
const FREE_BACKENDS: ReadonlySet<BackendName> = new Set<BackendName>(["scripted", "local", "transformers"]);

/** The model a job on `backend` samples from (`model`: the --model flag, where the backend takes one). */
export function backendModel(backend: BackendName, config: AgentLabConfig, model?: string): string {
  if (backend === "local") return LOCAL_BACKEND_MODEL;
  if (backend === "scripted") return model ?? SCRIPTED_MODEL;
  if (backend === "transformers") return model ?? config.localModel;
  return model ?? config.model;
}

export function isFreeBackend(backend: BackendName): boolean {
  return FREE_BACKENDS.has(backend);
}
