/** The episode list's rows for a run (vscode-free, so tests build them without an editor). */
import type { EpisodeRecord } from "../../core/runs/run-files";
import { outcomeOf, type EpisodeRow } from "../../core/trace/episode-list";

export function episodeRows(episodes: readonly EpisodeRecord[]): EpisodeRow[] {
  return episodes.map((e) => ({ id: e.id, question: e.question, f1: e.f1, em: e.em, end: e.end, searches: e.searches.length, outcome: outcomeOf(e), gold: "unknown" }));
}
