/**
 * The one place where eval chooses its model source. New backends (the Tinker sampler, the local
 * Tinker-compatible server, a transformers.js model) plug in here and nowhere else.
 */
import { offlineTokenizer } from "../chat";
import { UserError } from "../errors";
import type { AgentLabConfig } from "../config";
import type { Policy } from "../harness/policy";
import { HeuristicPolicy } from "../demo/heuristic-policy";

export const BACKENDS = ["scripted", "tinker", "local", "transformers"] as const;
export type BackendName = (typeof BACKENDS)[number];

export interface PolicyOptions {
  backend: string;
  config: AgentLabConfig;
  /** Sampler checkpoint (tinker://…) for backends that load saved weights. */
  checkpoint?: string;
  /** scripted only: sleep per turn, to watch a run (or kill one in a test). */
  scriptedDelayMs?: number;
}

export async function makePolicy(options: PolicyOptions): Promise<Policy> {
  switch (options.backend) {
    case "scripted":
      if (options.checkpoint) throw new UserError("--checkpoint needs a backend that loads weights; the scripted reader has none");
      // The honest heuristic reader: free, offline, no logprobs; a stand-in for a model.
      return new HeuristicPolicy(await offlineTokenizer("qwen3"), { delayMs: options.scriptedDelayMs });
    case "tinker":
    case "local":
    case "transformers":
      throw new UserError(`--backend ${options.backend} is not available yet in this version; use --backend scripted`);
    default:
      throw new UserError(`unknown --backend "${options.backend}"; choose one of ${BACKENDS.join(", ")}`);
  }
}
