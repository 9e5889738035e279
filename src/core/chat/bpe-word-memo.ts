/**
 * transformers.js' BPE model memoizes each pre-tokenized word's merges in an LRU of 10,000 words
 * that moves a word to the back on every hit (a Map delete and a Map insert). Real paragraphs have
 * more distinct words than that (25,585 in HotpotQA's 3,075 dev paragraphs), so the LRU evicts what
 * it needs again, and even a hit costs a re-insertion: result turns encoded at 11–15 µs a token,
 * most of the harness's own time per turn. A plain Map, emptied when it holds MAX_WORDS, memoizes
 * the same pure function (a word's merges) at 5.2–5.3 µs a token on the same text, same ids.
 */

/** Bounds the memo's memory (a word and its merged pieces: some hundred bytes each). */
export const MAX_WORDS = 200_000;

interface WordCache {
  get(word: string): string[] | undefined;
  put(word: string, pieces: string[]): void;
  clear(): void;
}

/**
 * Swaps the BPE model's LRU for the plain memo; returns false (and changes nothing) when the
 * tokenizer is not shaped as this was written for (another transformers.js version, or not BPE).
 */
export function useWordMemo(tokenizer: unknown): boolean {
  const model = (tokenizer as { _tokenizer?: { model?: { cache?: Partial<WordCache>; bpe?: unknown } } })._tokenizer?.model;
  const lru = model?.cache;
  if (!model || typeof model.bpe !== "function" || typeof lru?.get !== "function" || typeof lru.put !== "function" || typeof lru.clear !== "function") return false;
  const words = new Map<string, string[]>();
  const memo: WordCache = {
    get: (word) => words.get(word),
    put: (word, pieces) => {
      if (words.size >= MAX_WORDS) words.clear();
      words.set(word, pieces);
    },
    clear: () => words.clear(),
  };
  model.cache = memo;
  return true;
}
