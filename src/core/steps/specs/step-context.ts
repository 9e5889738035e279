/**
 * What every step function is handed besides its own settings, declared once so the options of
 * eval, sft-data, train-sft, train-grpo and gen-tasks cannot drift apart.
 */
import type { Progress } from "../../base/runs/progress";

/** How a caller (the CLI, the extension, the pipeline) runs a step and hears from it. */
export interface StepContext {
  /** argv as typed, recorded in the manifest. */
  command: string[];
  /** Aborted: finish the current step, save, stop (a rerun with --resume continues). */
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Told of every progress.json update (the pipeline nests it in its own). */
  onProgress?: (p: Progress) => void;
}

/** Which policy a sampling step builds (eval, sft-data) and the policy factory takes. */
export interface PolicyChoice {
  backend: string;
  /** Sampler checkpoint (tinker://…) for backends that load saved weights. */
  checkpoint?: string;
  /** Model id or folder: tinker defaults to config.model, transformers to config.localModel. */
  model?: string;
  /** Tokenizer hub id, folder or the offline stand-in (STAND_IN_TOKENIZER) when it is not the model's (tinker, local). */
  tokenizer?: string;
  /** local: URL of a running local backend (the CLI starts or reuses one). */
  localBackendUrl?: string;
  /** scripted only: sleep per turn, to watch a run (or kill one in a test). */
  scriptedDelayMs?: number;
}
