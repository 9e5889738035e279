/**
 * The one place where eval chooses its model source: the offline scripted reader, Tinker, the local
 * Tinker-compatible backend (same client, over HTTP), or a transformers.js model on this machine.
 */
import { join } from "node:path";
import { loadTokenizerSource, offlineTokenizer } from "../../base/chat";
import { UserError } from "../../base/errors";
import type { AgentLabConfig } from "../../base/config";
import type { Policy } from "../../harness/policy";

import { SAMPLING_BACKENDS } from "../specs/common-flags";
import type { PolicyChoice } from "../specs/step-context";
import { backendModel, LOCAL_BACKEND_MODEL, type BackendName } from "./backend-model";

export { LOCAL_BACKEND_MODEL, type BackendName };

/**
 * Where a workspace's local backend keeps its checkpoints: one folder for `serve-local`, every
 * `--backend local` command and the offline pipeline, so a tinker:// path one wrote loads in another.
 */
export function localBackendDir(workspaceDir: string): string {
  return join(workspaceDir, ".cache", "local-backend");
}

/** Any key with Tinker's prefix: the local backend accepts all, and a real key must never be sent to it. */
export const LOCAL_BACKEND_KEY = "tml-local-backend";

export interface PolicyOptions extends PolicyChoice {
  config: AgentLabConfig;
  /** The environment played (default: config env): `scripted` samples from its folder's scripted reader. */
  env?: string | { readonly name: string };
}

export async function makePolicy(options: PolicyOptions): Promise<Policy> {
  const { config, checkpoint } = options;
  switch (options.backend) {
    case "scripted": {
      if (checkpoint)
        throw new UserError("--model-path needs a backend that loads weights; the scripted reader has none");
      return scriptedPlayer(options.env ?? config.env, options.scriptedDelayMs);
    }
    case "tinker": {
      const { createTinkerPolicy } = await import("../../harness/policies/tinker");
      const { resolveApiKey } = await import("../../base/tinker/key");
      const model = backendModel("tinker", config, options.model);
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
      return createTransformersPolicy({ model: backendModel("transformers", config, options.model) });
    }
    default:
      throw new UserError(`unknown --backend "${options.backend}"; choose one of ${SAMPLING_BACKENDS.join(", ")}`);
  }
}

/** The environment's scripted player; one without its own is played by the default environment's. */
async function scriptedPlayer(env: string | { readonly name: string }, delayMs: number | undefined): Promise<Policy> {
  const { DEFAULT_ENVIRONMENT, environmentByName, scriptedReader } = await import("../../envs/registry");
  const name = typeof env === "object" ? env.name : environmentByName(env).name;
  // An environment without a reader of its own is played by the default environment's: on a protocol
  // that reader only guesses, a floor that still exercises the plumbing (as before environments had readers).
  const read = scriptedReader(name) ?? scriptedReader(DEFAULT_ENVIRONMENT);
  if (!read) throw new UserError(`--backend scripted: no scripted reader for the ${name} environment`);
  return read(await offlineTokenizer("qwen3"), { delayMs });
}
