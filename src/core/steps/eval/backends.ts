/**
 * The one place where eval chooses its model source: the offline scripted reader, Tinker, the local
 * Tinker-compatible backend (same client, over HTTP), or a transformers.js model on this machine.
 */
import { join } from "node:path";
import { loadTokenizerSource, offlineTokenizer } from "../../base/chat";
import { UserError } from "../../base/errors";
import type { AgentLabConfig } from "../../base/config";
import type { Policy } from "../../harness/policy";
import { HeuristicPolicy } from "../../envs/hotpotqa/heuristic-policy";
import { scriptedReader } from "../../envs/registry";

import { SAMPLING_BACKENDS } from "../specs/common-flags";
import type { PolicyChoice } from "../specs/step-context";
export type BackendName = (typeof SAMPLING_BACKENDS)[number];

/** The name the local stand-in's model goes by in manifests: never a real model's id. */
export const LOCAL_BACKEND_MODEL = "agent-lab/local-tiny";

/**
 * Where a workspace's local backend keeps its checkpoints: one folder for `serve-local`, every
 * `--backend local` command and the offline pipeline, so a tinker:// path one wrote loads in another.
 */
export function localBackendDir(workspaceDir: string): string {
  return join(workspaceDir, ".cache", "local-backend");
}

/** Any key with Tinker's prefix: the local backend accepts all, and a real key must never be sent to it. */
const LOCAL_BACKEND_KEY = "tml-local-backend";

export interface PolicyOptions extends PolicyChoice {
  config: AgentLabConfig;
  /** The environment sampled in: `--backend scripted` is its own scripted reader when its folder has one. */
  env?: { readonly name: string };
}

export async function makePolicy(options: PolicyOptions): Promise<Policy> {
  const { config, checkpoint } = options;
  switch (options.backend) {
    case "scripted": {
      if (checkpoint)
        throw new UserError("--model-path needs a backend that loads weights; the scripted reader has none");
      const own = options.env && scriptedReader(options.env.name);
      const tokenizer = await offlineTokenizer("qwen3");
      if (own) return own(tokenizer, { delayMs: options.scriptedDelayMs });
      // The honest heuristic reader: free, offline, no logprobs; a stand-in for a model.
      return new HeuristicPolicy(tokenizer, { delayMs: options.scriptedDelayMs });
    }
    case "tinker": {
      const { createTinkerPolicy } = await import("../../harness/policies/tinker");
      const { resolveApiKey } = await import("../../base/tinker/key");
      const model = options.model ?? config.model;
      // The key comes from TINKER_API_KEY (the extension sets it from SecretStorage), never a flag;
      // checked before the tokenizer download so a missing key fails at once.
      const apiKey = resolveApiKey(undefined);
      return createTinkerPolicy({
        apiKey,
        model,
        modelPath: checkpoint,
        tokenizer: await loadTokenizerSource(options.tokenizer ?? model),
      });
    }
    case "local": {
      if (!options.localBackendUrl) {
        throw new UserError(
          "--backend local needs a running local backend: run `agent-lab serve-local` or use `agent-lab eval`, which starts one",
        );
      }
      const { createTinkerPolicy } = await import("../../harness/policies/tinker");
      return createTinkerPolicy({
        apiKey: LOCAL_BACKEND_KEY,
        baseUrl: options.localBackendUrl,
        model: LOCAL_BACKEND_MODEL,
        modelPath: checkpoint,
        tokenizer: options.tokenizer ? await loadTokenizerSource(options.tokenizer) : await offlineTokenizer("qwen3"),
        kind: "local-backend",
      });
    }
    case "transformers": {
      if (checkpoint)
        throw new UserError("--model-path is for Tinker checkpoints; give a local model folder with --model");
      const { createTransformersPolicy } = await import("../../harness/policies/transformers");
      return createTransformersPolicy({ model: options.model ?? config.localModel });
    }
    default:
      throw new UserError(`unknown --backend "${options.backend}"; choose one of ${SAMPLING_BACKENDS.join(", ")}`);
  }
}
