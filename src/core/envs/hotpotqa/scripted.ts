/**
 * The search agent's scripted reader (`--backend scripted`, `--teacher scripted`): the heuristic
 * reader (heuristic-policy.ts): free, offline, no logprobs. Environments without a scripted.ts of
 * their own are played by the default environment's reader (steps/eval/backends.ts).
 */
import type { ScriptedReader } from "../../harness/policies/scripted";
import { HeuristicPolicy } from "./heuristic-policy";

export const SCRIPTED_READER: ScriptedReader = (tokenizer, o) => new HeuristicPolicy(tokenizer, { delayMs: o.delayMs });
