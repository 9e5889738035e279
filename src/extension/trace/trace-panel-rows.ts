/** The episode list's rows for a run (vscode-free, so tests build them without an editor). */
import type { EpisodeHead } from "../../core/base/runs/episode-index";
import { roleValues, type MetricDeclaration } from "../../core/base/runs/metrics";
import { outcomeOf, type EpisodeRow } from "../../core/views/trace/episode-list";

/**
 * Rows from episodes' light fields (whole records work too): no token array is touched. `metrics`:
 * the run's environment's declarations (the rows' primary and binary values).
 */
export function episodeRows(episodes: readonly EpisodeHead[], metrics?: readonly MetricDeclaration[]): EpisodeRow[] {
  return episodes.map((e) => {
    const v = roleValues(e, metrics);
    return {
      id: e.id,
      question: e.question,
      primary: v.primary,
      binary: v.binary,
      end: e.end,
      searches: e.searches.length,
      outcome: outcomeOf(e.end, v.binary),
      gold: "unknown",
    };
  });
}
