/**
 * Token ids → the text of each token, for the trace viewer's per-token spans and hovers.
 *
 * Decoding one id at a time breaks characters whose UTF-8 bytes span several tokens (CJK, emoji,
 * accented letters in byte-level BPE): each half decodes to U+FFFD. Such tokens are joined with
 * their neighbours until the piece decodes cleanly; the text goes to the first token of the piece
 * and the rest get "", so the concatenation of all texts equals decoding the whole sequence.
 */
import type { ChatTokenizer } from "../chat/tokenizer";

const REPLACEMENT = "\uFFFD";
/** A UTF-8 character has at most 4 bytes, so a clean piece needs at most 4 byte tokens. */
const MAX_PIECE = 4;

export function decodePerToken(tok: Pick<ChatTokenizer, "decode">, ids: readonly number[]): string[] {
  const texts: string[] = new Array(ids.length);
  let i = 0;
  while (i < ids.length) {
    const single = tok.decode([ids[i]]);
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
