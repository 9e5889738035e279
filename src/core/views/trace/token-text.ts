/**
 * Token ids → the text of each token, for the trace viewer's per-token spans and hovers.
 *
 * Decoding one id at a time breaks characters whose UTF-8 bytes span several tokens (CJK, emoji,
 * accented letters in byte-level BPE): each half decodes to U+FFFD. Such tokens are joined with
 * their neighbours until the piece decodes cleanly; the text goes to the first token of the piece
 * and the rest get "", so the concatenation of all texts equals decoding the whole sequence.
 *
 * Speed (a 20,000-token episode must show at once): a decode call costs ~10 µs however short, so
 * each distinct id is decoded once, in one batch call with a special token between ids, and cached
 * per tokenizer.
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";

/** What decoding gives for bytes of no whole character. */
export const REPLACEMENT = "\uFFFD";
/** A UTF-8 character has at most 4 bytes, so a clean piece needs at most 4 byte tokens. */
const MAX_PIECE = 4;
/** Separator candidates: special tokens that decode to exactly their own text. */
const SEPARATORS = ["<|endoftext|>", "<|fim_pad|>", "</s>"];

type Decoder = Pick<ChatTokenizer, "decode"> & Partial<Pick<ChatTokenizer, "tokenId">>;

const caches = new WeakMap<object, Map<number, string>>();

function separatorOf(tok: Decoder): { id: number; text: string } | undefined {
  if (!tok.tokenId) return undefined;
  for (const text of SEPARATORS) {
    try {
      const id = tok.tokenId(text);
      if (tok.decode([id]) === text) return { id, text };
    } catch {
      // not in this vocabulary
    }
  }
  return undefined;
}

/** Fills the cache with the single-token text of every id not in it yet. */
function decodeDistinct(tok: Decoder, ids: readonly number[], cache: Map<number, string>): void {
  const missing = [...new Set(ids)].filter((id) => !cache.has(id));
  if (missing.length === 0) return;
  const sep = separatorOf(tok);
  if (sep) {
    const batch = missing.filter((id) => id !== sep.id);
    const joined: number[] = [];
    batch.forEach((id, i) => {
      if (i) joined.push(sep.id);
      joined.push(id);
    });
    const parts = batch.length ? tok.decode(joined).split(sep.text) : [];
    if (parts.length === batch.length) {
      batch.forEach((id, i) => cache.set(id, parts[i]));
      if (missing.includes(sep.id)) cache.set(sep.id, sep.text);
      return;
    }
  }
  for (const id of missing) cache.set(id, tok.decode([id]));
}

export function decodePerToken(tok: Decoder, ids: readonly number[]): string[] {
  let cache = caches.get(tok);
  if (!cache) caches.set(tok, (cache = new Map()));
  decodeDistinct(tok, ids, cache);
  const texts: string[] = new Array(ids.length);
  let i = 0;
  while (i < ids.length) {
    const single = cache.get(ids[i])!;
    if (!single.includes(REPLACEMENT)) {
      texts[i] = single;
      i++;
      continue;
    }
    let joined = single;
    let n = 1;
    for (let k = 2; k <= MAX_PIECE && i + k <= ids.length; k++) {
      const piece = tok.decode(ids.slice(i, i + k));
      if (!piece.includes(REPLACEMENT)) {
        joined = piece;
        n = k;
        break;
      }
    }
    texts[i] = joined;
    for (let k = 1; k < n; k++) texts[i + k] = "";
    i += n;
  }
  return texts;
}
