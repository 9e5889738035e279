/**
 * Full-text search inside a run: questions, gold answers, predictions, queries and the text the
 * searches returned. Built once per run in the extension (MiniSearch, prefix and light fuzzy
 * matching) and saved beside the run (run-text-cache.ts), so reopening a run does not decode its
 * results again; the webview sends a query and gets episode ids back.
 */
import MiniSearch, { type AsPlainObject, type Options } from "minisearch";
import type { ChatTokenizer } from "../chat/tokenizer";
import type { EpisodeRecord } from "../runs/run-files";
import { resultTexts } from "./gold-in-results";

interface SearchDoc {
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

const OPTIONS: Options<SearchDoc> = {
  fields: ["question", "answers", "prediction", "queries", "results"],
  storeFields: [],
  searchOptions: { boost: { question: 2, answers: 2, prediction: 2 }, prefix: true, fuzzy: 0.15, combineWith: "AND" },
};

export class RunSearch {
  private index: MiniSearch<SearchDoc>;

  /** Episodes indexed so far (a run's index is built in slices, alongside gold-in-results). */
  size = 0;

  constructor(saved?: SavedRunSearch) {
    this.index = saved ? MiniSearch.loadJS<SearchDoc>(saved, OPTIONS) : new MiniSearch<SearchDoc>(OPTIONS);
    this.size = this.index.documentCount;
  }

  /** A saved index, rebuilt in chunks that yield to the event loop (10,000 episodes take a while). */
  static async restore(saved: SavedRunSearch): Promise<RunSearch> {
    const s = new RunSearch();
    s.index = await MiniSearch.loadJSAsync<SearchDoc>(saved, OPTIONS);
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

  /** Ids of matching episodes, best first; [] for a blank query. */
  search(query: string): string[] {
    if (!query.trim()) return [];
    return this.index.search(query).map((r) => String(r.id));
  }
}
