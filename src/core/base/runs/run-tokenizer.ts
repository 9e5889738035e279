/**
 * The tokenizer a run was recorded with, to decode its token ids. The manifest names it; the
 * offline Qwen3 tokenizer is recognised by its content hash, anything else is loaded by hub id
 * (from the cache when offline). When it cannot be loaded, callers show runs without traces.
 */
import { loadTokenizer, offlineTokenizer } from "../chat";
import { offlineTokenizerNamed } from "../chat/offline-tokenizer";
import type { ChatTokenizer } from "../chat/tokenizer";

export async function tokenizerForRun(
  name: string | undefined,
): Promise<{ tokenizer?: ChatTokenizer; problem?: string }> {
  if (!name) return { problem: "the run has no manifest naming its tokenizer" };
  try {
    const offline = await offlineTokenizer("qwen3");
    if (offline.name === name) return { tokenizer: offline };
    // The offline vocabulary with another template: that template when this machine has it (the
    // drift check renders with it), else the vocabulary alone, which decodes the same ids.
    if (name.startsWith(`${offline.name}+template:`))
      return { tokenizer: (await offlineTokenizerNamed(name)) ?? offline };
    // Hub ids: drop the "+template:<hash>" tag; the vocabulary (not the template) decodes ids.
    return { tokenizer: await loadTokenizer(name.replace(/\+template:[0-9a-f]+$/, "")) };
  } catch (e) {
    return { problem: `cannot load tokenizer "${name}": ${(e as Error).message}` };
  }
}
