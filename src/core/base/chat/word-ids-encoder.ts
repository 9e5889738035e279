/**
 * Encoding text with a memo of each pre-tokenized word's token ids, for byte-level BPE tokenizers
 * shaped like Qwen's (added tokens split out, a normalizer, a Split regex, then ByteLevel without a
 * regex of its own, then BPE word by word).
 *
 * transformers.js' generic encode maps every word to its byte-level characters, looks its merges up
 * in an LRU of 10,000 words that re-inserts a word on every hit and evicts words it needs again
 * (real paragraphs have more distinct words: 25,585 in the search agent's 3,075 dev paragraphs), then maps
 * each piece to its id, about 11–15 µs a token on real result turns, most of the harness's own time
 * per turn. A BPE model encodes each pre-tokenized word on its own, so a word's ids are a pure
 * function of the word: this uses the library's own added-token splitter, normalizer and split
 * regex, memoizes each word's ids (keyed by the word before the byte-level mapping), and merges a
 * word it has not seen over token ids (the library merges the rare word of more than 64 bytes).
 * `test/unit/core/base/chat/word-ids-encoder.test.ts` checks the ids against the library's on real and
 * hostile text; a tokenizer of any other shape keeps the library's encode.
 */

import { MergeTable } from "./merge-table";

/** Bounds the memo's memory (a word and its ids: some hundred bytes each); emptied when full. */
export const MAX_WORDS = 200_000;
/** Longer words (a run of spaces, a long number) are encoded each time rather than memoized. */
const MAX_MEMO_WORD_LENGTH = 256;

type Callable<A, R> = (arg: A) => R;

/** The parts of transformers.js' internal Tokenizer (`tokenizer._tokenizer`) this module uses. */
interface TokenizerInternals {
  splitter_unnormalized: { split(text: string): string[] };
  added_tokens: { lstrip: boolean; rstrip: boolean; normalized: boolean }[];
  added_tokens_map: Map<string, { id: number }>;
  normalizer: Callable<string, string> | null;
  pre_tokenizer: {
    tokenizers?: {
      pattern?: unknown;
      pre_tokenize_text?: (text: string) => string[];
      byte_encoder?: Record<number, string>;
    }[];
  } | null;
  model: Callable<string[], string[]> &
    BpeModel & { tokens_to_ids: Map<string, number>; unk_token_id?: number; fuse_unk?: boolean };
  remove_space?: boolean;
  do_lowercase_and_remove_accent?: boolean;
}

/** What a BPE model needs beyond its vocabulary to merge a word by itself. */
interface BpeModel {
  merges?: unknown;
  byte_fallback?: boolean;
  ignore_merges?: boolean;
  end_of_word_suffix?: string | null;
  continuing_subword_suffix?: string | null;
}

interface TokenizerJson {
  pre_tokenizer?: {
    type?: string;
    pretokenizers?: {
      type?: string;
      behavior?: string;
      invert?: boolean;
      add_prefix_space?: boolean;
      use_regex?: boolean;
    }[];
  } | null;
  post_processor?: { type?: string } | null;
  model?: { type?: string; dropout?: number | null };
}

export type Encode = (text: string) => number[];

/**
 * An encode with the same ids as `tokenizer.encode(text, { add_special_tokens: false })`, or
 * undefined when the tokenizer (a transformers.js PreTrainedTokenizer) is not shaped as this was
 * written for: another transformers.js version, another kind of model or pre-tokenizer.
 */
export function wordIdsEncoder(tokenizer: unknown): Encode | undefined {
  const tok = tokenizer as { _tokenizer?: Partial<TokenizerInternals>; _tokenizerJSON?: TokenizerJson };
  const parts = tok._tokenizer;
  const json = tok._tokenizerJSON;
  if (!parts || !json || !hasExpectedShape(parts, json)) return undefined;
  const { splitter_unnormalized: splitter, added_tokens_map: added, normalizer, model } = parts as TokenizerInternals;
  const [split, byteLevel] = (parts as TokenizerInternals).pre_tokenizer!.tokenizers! as [
    { pattern: RegExp },
    { pre_tokenize_text(text: string): string[]; byte_encoder?: Record<number, string> },
  ];
  const pattern = split.pattern;
  const vocabulary = model.tokens_to_ids;
  const unknown = model.unk_token_id as number; // undefined for Qwen, as in the library's own encode
  // Made on the first word to merge: a tokenizer loaded only to decode (the trace view) never pays for it.
  let merge: Merger | undefined | null = null;
  const memo = new Map<string, number[]>();

  function wordIds(word: string): number[] {
    let ids = memo.get(word);
    if (ids !== undefined) return ids;
    if (merge === null) merge = byteLevelMerger(model, byteLevel.byte_encoder);
    ids =
      merge?.(word) ??
      model(byteLevel.pre_tokenize_text(word)).map((token) => added.get(token)?.id ?? vocabulary.get(token) ?? unknown);
    if (word.length <= MAX_MEMO_WORD_LENGTH) {
      if (memo.size >= MAX_WORDS) memo.clear();
      memo.set(word, ids);
    }
    return ids;
  }

  function pushWords(text: string, out: number[]): void {
    // The Split pre-tokenizer's "Isolated" behaviour: every match and every gap between matches is a word.
    let previous = 0;
    for (const match of text.matchAll(pattern)) {
      const index = match.index;
      if (previous < index) pushAll(out, wordIds(text.slice(previous, index)));
      if (match[0].length > 0) pushAll(out, wordIds(match[0]));
      previous = index + match[0].length;
    }
    if (previous < text.length) pushAll(out, wordIds(text.slice(previous)));
  }

  return (text: string): number[] => {
    const out: number[] = [];
    for (const piece of splitter.split(text)) {
      if (piece.length === 0) continue;
      const special = added.get(piece);
      if (special) {
        out.push(special.id);
        continue;
      }
      const normalized = normalizer ? normalizer(piece) : piece;
      if (normalized.length === 0) continue;
      const specialAfter = added.get(normalized);
      if (specialAfter) out.push(specialAfter.id);
      else pushWords(normalized, out);
    }
    return out;
  };
}

/** Words with more UTF-8 bytes go to the library's merging (a heap); the scan below is quadratic. */
const MAX_SCANNED_BYTES = 64;

type Merger = (word: string) => number[] | undefined;

/**
 * A word's BPE merges over token ids rather than strings: the word's UTF-8 bytes become their
 * byte-level tokens, then the adjacent pair of lowest merge rank (the leftmost of equal ones) is
 * merged until no pair has a rank, the order the library's heap keeps. Undefined when the model
 * has options this does not do, or a merge whose parts or result are not in the vocabulary (the
 * library then gives the unknown token, which only it reproduces); the merger itself answers
 * undefined for a long word.
 */
function byteLevelMerger(
  model: BpeModel & { tokens_to_ids: Map<string, number> },
  byteEncoder: Record<number, string> | undefined,
): Merger | undefined {
  if (
    !byteEncoder ||
    !Array.isArray(model.merges) ||
    model.byte_fallback ||
    model.ignore_merges ||
    model.end_of_word_suffix ||
    model.continuing_subword_suffix
  )
    return undefined;
  const vocabulary = model.tokens_to_ids;
  const byteIds = new Int32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    const id = vocabulary.get(byteEncoder[byte]);
    if (id === undefined) return undefined;
    byteIds[byte] = id;
  }
  const list = model.merges as unknown[];
  const table = new MergeTable(list.length);
  for (let rank = 0; rank < list.length; rank++) {
    const pair = list[rank];
    if (!Array.isArray(pair) || pair.length !== 2) return undefined;
    const [a, b] = pair as [string, string];
    const left = vocabulary.get(a);
    const right = vocabulary.get(b);
    const merged = vocabulary.get(a + b);
    if (left === undefined || right === undefined || merged === undefined) return undefined;
    table.add(left, right, rank, merged);
  }
  const utf8 = new TextEncoder();
  const bytes = new Uint8Array(MAX_SCANNED_BYTES);

  return (word) => {
    if (word.length > MAX_SCANNED_BYTES) return undefined;
    const { read, written } = utf8.encodeInto(word, bytes);
    if (read < word.length) return undefined; // more bytes than the buffer holds
    const symbols: number[] = new Array(written);
    for (let i = 0; i < written; i++) symbols[i] = byteIds[bytes[i]];
    for (;;) {
      let best = -1;
      let bestSlot = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 1 < symbols.length; i++) {
        const slot = table.find(symbols[i], symbols[i + 1]);
        if (slot >= 0 && table.rankAt(slot) < bestRank) {
          bestRank = table.rankAt(slot);
          bestSlot = slot;
          best = i;
        }
      }
      if (best < 0) return symbols;
      symbols[best] = table.mergedAt(bestSlot);
      symbols.splice(best + 1, 1);
    }
  };
}

function pushAll(out: number[], ids: number[]): void {
  for (let i = 0; i < ids.length; i++) out.push(ids[i]);
}

/**
 * The library's encode splits added tokens out, normalizes the rest, pre-tokenizes it and runs the
 * model over the words; word-by-word memoizing is exact when nothing else happens in between: no
 * added token strips its neighbours or is matched after normalizing, the pre-tokenizer is a Split
 * regex keeping matches and gaps followed by a ByteLevel that maps each word alone, the model is BPE
 * without dropout or fused unknowns, and the post-processor adds nothing without special tokens.
 */
function hasExpectedShape(parts: Partial<TokenizerInternals>, json: TokenizerJson): boolean {
  const pre = json.pre_tokenizer;
  const [split, byteLevel] = pre?.pretokenizers ?? [];
  const shapeOfJson =
    pre?.type === "Sequence" &&
    pre.pretokenizers?.length === 2 &&
    split?.type === "Split" &&
    split.behavior === "Isolated" &&
    split.invert === false &&
    byteLevel?.type === "ByteLevel" &&
    byteLevel.use_regex === false &&
    byteLevel.add_prefix_space === false &&
    json.model?.type === "BPE" &&
    (json.model.dropout ?? null) === null &&
    (json.post_processor == null || json.post_processor.type === "ByteLevel");
  if (!shapeOfJson) return false;
  const compiled = parts.pre_tokenizer?.tokenizers;
  return (
    typeof parts.splitter_unnormalized?.split === "function" &&
    Array.isArray(parts.added_tokens) &&
    parts.added_tokens.every((t) => !t.lstrip && !t.rstrip && !(t.normalized && parts.normalizer)) &&
    parts.added_tokens_map instanceof Map &&
    (parts.normalizer === null || typeof parts.normalizer === "function") &&
    compiled?.length === 2 &&
    compiled[0].pattern instanceof RegExp &&
    compiled[0].pattern.global &&
    typeof compiled[1].pre_tokenize_text === "function" &&
    typeof parts.model === "function" &&
    parts.model.tokens_to_ids instanceof Map &&
    !parts.model.fuse_unk &&
    parts.remove_space !== true &&
    !parts.do_lowercase_and_remove_accent
  );
}
