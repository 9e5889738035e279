/** The episode list's rows for a run (vscode-free, so tests build them without an editor). */
import type { EpisodeHead } from "../../core/base/runs/episode-index";
import { outcomeOf, type EpisodeRow } from "../../core/views/trace/episode-list";

/** Rows from episodes' light fields (whole records work too): no token array is touched. */
export function episodeRows(episodes: readonly EpisodeHead[]): EpisodeRow[] {
  return episodes.map((e) => ({ id: e.id, question: e.question, f1: e.f1, em: e.em, end: e.end, searches: e.searches.length, outcome: outcomeOf(e), gold: "unknown" }));
}
