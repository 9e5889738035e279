/**
 * One episode as a table of text, for the trace's Copy as Markdown / CSV and Save As… buttons: its
 * question, answers and scores, then each section of its token stream (prompt, model replies,
 * search results, harness text) with its turn and text, as the viewer lays them out.
 */
import type { TextTable } from "../../src/core/base/util/table-text";
import type { TraceEpisodeView } from "../../src/core/views/trace/trace-view";
import type { RunViewSpec } from "../../src/core/views/trace/run-view";
import { fmt } from "../shared/dom";
import { sectionTitle } from "./token-stream";

export function episodeTable(ep: TraceEpisodeView, view: RunViewSpec, runName: string | undefined): TextTable {
  const scores = view.oneMetric
    ? [[view.primary.label, String(ep.primary)]]
    : [
        [view.binary.label, String(ep.binary)],
        [view.primary.label, fmt(ep.primary, 3)],
      ];
  const text = (s: TraceEpisodeView["sections"][number]) =>
    (s.kind === "prompt" ? ep.prompt : ep.tokens).texts.slice(s.start, s.end).join("");
  return {
    title: `${runName ? `${runName} · ` : ""}episode ${ep.id}`,
    headers: ["part", "turn", "text"],
    rows: [
      ["question", "", ep.question],
      ["prediction", "", ep.prediction],
      ["gold", "", ep.answers.join(" | ")],
      ...scores.map(([label, value]) => [label, "", value]),
      ["end", "", ep.end],
      ...ep.sections.map((s) => [sectionTitle(s), s.kind === "prompt" ? "" : String(s.turn), text(s)]),
    ],
  };
}
