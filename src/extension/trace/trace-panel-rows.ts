/** The episode list's rows for a run (vscode-free, so tests build them without an editor). */
import type { EpisodeHead } from "../../core/base/runs/episode-index";
import { roleValues, type MetricDeclaration } from "../../core/base/runs/metrics";
import { outcomeOf, type EpisodeRow } from "../../core/views/trace/episode-list";

/**
 * Rows from episodes' light fields (whole records work too): no token array is touched. `metrics`:
 * the run's environment's declarations (the row's `f1` is the primary value, `em` the binary one).
 */
export function episodeRows(episodes: readonly EpisodeHead[], metrics?: readonly MetricDeclaration[]): EpisodeRow[] {
  return episodes.map((e) => {
    const v = roleValues(e, metrics);
    return {
      id: e.id,
      question: e.question,
      f1: v.f1,
      em: v.em,
      end: e.end,
      searches: e.searches.length,
      outcome: outcomeOf(e.end, v.em),
      gold: "unknown",
    };
  });
}
