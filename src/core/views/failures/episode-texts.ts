/**
 * An episode's text for the failure rules, decoded from its tokens on first use: each turn's reply
 * (tokens[start, reply_end)) and the harness text after it (tokens[reply_end, end)). Records from
 * before turn boundaries were kept split the tokens at each change between sampled and inserted.
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import type { EpisodeRecord } from "../../base/runs/run-files";
import type { EpisodeTexts } from "../../harness/failures";

type Decoder = Pick<ChatTokenizer, "decode">;

/** The turns' token spans: [reply start, reply end, observation end] each. */
function spans(record: EpisodeRecord): [number, number, number][] {
  if (record.turns && record.turns.length > 0) return record.turns.map((t) => [t.start, t.reply_end, t.end]);
  const out: [number, number, number][] = [];
  let i = 0;
  const n = record.tokens.length;
  while (i < n) {
    const start = i;
    while (i < n && record.sampled[i] !== 0) i++;
    const replyEnd = i;
    while (i < n && record.sampled[i] === 0) i++;
    out.push([start, replyEnd, i]);
  }
  return out;
}

/** `tok` undefined: the run's tokenizer could not be loaded, and the texts are undefined. */
export function tokenTexts(record: EpisodeRecord, tok: Decoder | undefined): EpisodeTexts {
  let decoded: { replies: string[]; observations: string[] } | undefined;
  const decode = () => {
    if (!tok) return undefined;
    decoded ??= (() => {
      const s = spans(record);
      const text = (a: number, b: number) => tok.decode(record.tokens.slice(a, b), { skipSpecialTokens: true });
      return { replies: s.map(([a, b]) => text(a, b)), observations: s.map(([, b, c]) => text(b, c)) };
    })();
    return decoded;
  };
  return { replies: () => decode()?.replies, observations: () => decode()?.observations };
}
