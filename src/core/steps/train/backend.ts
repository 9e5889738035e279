/**
 * Where training runs: Tinker (paid, priced per token) or the project's local Tinker-compatible
 * backend (free, a tiny stand-in model). Both are reached with the same client over HTTP.
 */
import type { AgentLabConfig, ModelPrices } from "../../base/config";
import { pricesFor } from "../../base/config";
import { UserError } from "../../base/errors";
import { LOCAL_BACKEND_MODEL } from "../eval/backends";
import { TinkerService, type RetryPolicy } from "../../base/tinker";

import { TRAINING_BACKENDS } from "../specs/common-flags";
export type TrainBackend = (typeof TRAINING_BACKENDS)[number];

/** Any tml- key: the local backend accepts all, and a real key must never be sent to it. */
const LOCAL_BACKEND_KEY = "tml-local-backend";

export interface TrainBackendOptions {
  backend: string;
  /** local: the running local backend's URL (required); tinker: override of TINKER_BASE_URL. */
  baseUrl?: string;
  /** tinker: else TINKER_API_KEY. */
  apiKey?: string;
  retry?: Partial<RetryPolicy>;
  /** Tests: observe every HTTP request. */
  fetch?: typeof fetch;
  log?: (line: string) => void;
}

export interface TrainTarget {
  backend: TrainBackend;
  /** The base model named to the service (the local stand-in goes by its own name, never a real model's). */
  baseModel: string;
  /** null = free. */
  prices: ModelPrices | null;
  service: TinkerService;
}

export function checkBackend(name: string): TrainBackend {
  if (!(TRAINING_BACKENDS as readonly string[]).includes(name))
    throw new UserError(`unknown --backend "${name}"; choose one of ${TRAINING_BACKENDS.join(", ")}`);
  return name as TrainBackend;
}

/** Prices first (an unpriced model is refused before any request), then the service client. */
export function openTrainTarget(config: AgentLabConfig, o: TrainBackendOptions): TrainTarget {
  const backend = checkBackend(o.backend);
  if (backend === "local") {
    if (!o.baseUrl)
      throw new UserError(
        "--backend local needs a running local backend (the CLI starts one, or run `agent-lab serve-local`)",
      );
    const service = new TinkerService({
      apiKey: LOCAL_BACKEND_KEY,
      baseUrl: o.baseUrl,
      env: {},
      retry: o.retry,
      fetch: o.fetch,
      log: o.log,
    });
    return { backend, baseModel: LOCAL_BACKEND_MODEL, prices: null, service };
  }
  const prices = pricesFor(config, config.model);
  const service = new TinkerService({
    apiKey: o.apiKey,
    baseUrl: o.baseUrl,
    retry: o.retry,
    fetch: o.fetch,
    log: o.log,
  });
  return { backend, baseModel: config.model, prices, service };
}
