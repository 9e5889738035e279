/** The searcher interface the harness calls. BM25 is the built-in one; others (e.g. Chroma) plug in here. */

/** One paragraph of the corpus as a search returns it. */
export interface SearchHit {
  /** Row id in corpus.jsonl. */
  id: number;
  title: string;
  text: string;
  score: number;
}

export interface Searcher {
  /**
   * The k best paragraphs for a query, best first; [] when the query has no searchable words.
   * In-process searchers answer at once; a remote one (http-searcher.ts) answers with a promise.
   */
  search(query: string, k: number): SearchHit[] | Promise<SearchHit[]>;
  /** Settings and index identity recorded in a run's manifest (e.g. kind, k1, b, index sha256). */
  describe(): Record<string, unknown>;
}
