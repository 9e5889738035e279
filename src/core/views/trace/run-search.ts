/**
 * Full-text search inside a run: questions, gold answers, predictions, queries and the text the
 * searches returned. Built once per run in the extension (MiniSearch, prefix and light fuzzy
 * matching) and saved beside the run (run-text-cache.ts), so reopening a run does not decode its
 * results again; the webview sends a query and gets episode ids back.
 */
import MiniSearch, { type AsPlainObject, type Options, type SearchOptions } from "minisearch";
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import type { EpisodeRecord } from "../../base/runs/run-files";
import { resultTexts } from "./gold-in-results";

export interface SearchDoc {
  id: string;
  question: string;
  answers: string;
  prediction: string;
  queries: string;
  results: string;
}

/** The fields an episode is indexed by (no token arrays: results come decoded). */
export type SearchableEpisode = Pick<EpisodeRecord, "id" | "question" | "answers" | "prediction" | "searches">;

/** The index as saved in a file (MiniSearch's own plain-object form). */
export type SavedRunSearch = AsPlainObject;

const SEARCH = {
  boost: { question: 2, answers: 2, prediction: 2 },
  prefix: true,
  fuzzy: 0.15,
  maxFuzzy: 6,
  combineWith: "AND",
} as const satisfies SearchOptions;

/** The index's options; `search` matches what MiniSearch's own search with them matches. */
export const RUN_SEARCH_OPTIONS: Options<SearchDoc> = {
  fields: ["question", "answers", "prediction", "queries", "results"],
  storeFields: [],
  searchOptions: SEARCH,
};

/** Per term: field id → (MiniSearch's short document id → term frequency). */
type FieldPostings = Map<number, Map<number, number>>;

/** MiniSearch's term tree (its SearchableMap), as far as matching reads it. */
interface TermTree {
  get(term: string): FieldPostings | undefined;
  atPrefix(prefix: string): Iterable<[string, FieldPostings]>;
  fuzzyGet(term: string, maxDistance: number): Map<string, [FieldPostings, number]>;
}

/** The parts of a MiniSearch 7 index that matching reads (its own fields, not its API). */
interface MiniSearchIndex {
  _index: TermTree;
  _documentIds: Map<number, string>;
}

function indexOf(ms: MiniSearch<SearchDoc>): MiniSearchIndex | undefined {
  const i = ms as unknown as Partial<MiniSearchIndex>;
  return typeof i._index?.atPrefix === "function" &&
    typeof i._index.fuzzyGet === "function" &&
    i._documentIds instanceof Map
    ? (i as MiniSearchIndex)
    : undefined;
}

const tokenize = MiniSearch.getDefault("tokenize") as (text: string) => string[];
const processTerm = MiniSearch.getDefault("processTerm") as (
  term: string,
) => string | string[] | null | undefined | false;

export class RunSearch {
  private index: MiniSearch<SearchDoc>;

  /** Episodes indexed so far (a run's index is built in slices, alongside gold-in-results). */
  size = 0;

  constructor(saved?: SavedRunSearch) {
    this.index = saved
      ? MiniSearch.loadJS<SearchDoc>(saved, RUN_SEARCH_OPTIONS)
      : new MiniSearch<SearchDoc>(RUN_SEARCH_OPTIONS);
    this.size = this.index.documentCount;
  }

  /** A saved index, rebuilt in chunks that yield to the event loop (10,000 episodes take a while). */
  static async restore(saved: SavedRunSearch): Promise<RunSearch> {
    const s = new RunSearch();
    s.index = await MiniSearch.loadJSAsync<SearchDoc>(saved, RUN_SEARCH_OPTIONS);
    s.size = s.index.documentCount;
    return s;
  }

  /** The plain-object form to save (JSON.stringify it). */
  toJSON(): SavedRunSearch {
    return this.index.toJSON();
  }

  /** `tok` decodes result text; without it only the other fields are searchable. */
  static build(episodes: readonly EpisodeRecord[], tok: Pick<ChatTokenizer, "decode"> | undefined): RunSearch {
    const s = new RunSearch();
    s.add(episodes, tok ? episodes.map((e) => resultTexts(e, tok)) : undefined);
    return s;
  }

  /** Adds episodes, with their decoded result texts when known. */
  add(episodes: readonly SearchableEpisode[], results?: readonly string[][]): void {
    this.index.addAll(
      episodes.map((e, i) => ({
        id: e.id,
        question: e.question,
        answers: e.answers.join(" | "),
        prediction: e.prediction,
        queries: e.searches.join(" | "),
        results: results?.[i]?.join("\n") ?? "",
      })),
    );
    this.size += episodes.length;
  }

  /**
   * Ids of the episodes that match every word of the query (each word exactly, as a prefix or
   * within MiniSearch's fuzzy distance: what MiniSearch's own AND search matches), in the order
   * they were added; [] for a blank query. The list is filtered by them, so they are not scored:
   * scoring each of the 9,000 episodes a common word is in, as MiniSearch's search does, was the
   * slow case at 10,000 episodes. Read from MiniSearch's index itself (no second copy).
   */
  search(query: string): string[] {
    if (!query.trim()) return [];
    const index = indexOf(this.index);
    // Another MiniSearch whose internals differ: its own search (same matches, scored).
    if (!index) return this.index.search(query).map((r) => String(r.id));
    const terms = tokenize(query)
      .flatMap((t) => processTerm(t) || [])
      .filter((t): t is string => typeof t === "string" && t.length > 0);
    if (terms.length === 0) return [];
    // hits.get(doc) = how many of the terms so far the document matched; it must match each in turn.
    const hits = new Map<number, number>();
    terms.forEach((term, k) => {
      for (const postings of expansions(index._index, term)) {
        for (const docs of postings.values()) {
          for (const doc of docs.keys()) {
            if (k === 0) hits.set(doc, 1);
            else if (hits.get(doc) === k) hits.set(doc, k + 1);
          }
        }
      }
    });
    const docs: number[] = [];
    for (const [doc, n] of hits) if (n === terms.length && index._documentIds.has(doc)) docs.push(doc);
    // Short ids are given in the order episodes were added.
    return docs.sort((x, y) => x - y).map((doc) => index._documentIds.get(doc)!);
  }
}

/** The postings of every indexed term a query term matches, as MiniSearch's search expands it. */
function expansions(index: TermTree, term: string): FieldPostings[] {
  const out: FieldPostings[] = [];
  const exact = index.get(term);
  if (exact) out.push(exact);
  if (SEARCH.prefix) for (const [t, postings] of index.atPrefix(term)) if (t !== term) out.push(postings);
  const distance = Math.min(SEARCH.maxFuzzy, Math.round(term.length * SEARCH.fuzzy));
  if (distance > 0) {
    for (const [t, [postings, d]] of index.fuzzyGet(term, distance)) {
      if (d > 0 && !(SEARCH.prefix && t.startsWith(term))) out.push(postings);
    }
  }
  return out;
}
