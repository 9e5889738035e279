/**
 * The search agent's scripted player (`--backend scripted`, `--teacher scripted`): the heuristic
 * reader (heuristic-policy.ts) on the offline Qwen3 tokenizer: free, offline, no logprobs.
 */
import { offlineTokenizer } from "../../base/chat";
import type { Policy } from "../../harness/policy";
import { HeuristicPolicy } from "./heuristic-policy";

export async function scriptedReader(o: { delayMs?: number }): Promise<Policy> {
  return new HeuristicPolicy(await offlineTokenizer("qwen3"), { delayMs: o.delayMs });
}
