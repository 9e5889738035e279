/**
 * The trace viewer's failure labels (the run's environment's rules, computed by the host when the
 * run is read): a list filter by label, with each label's count, and the episode header's label
 * and evidence. A component of its own so the list and header code only call into it. Every text
 * goes in as a text node (h()), never as markup: evidence quotes model and dataset text.
 */
import type { TraceFailures } from "../../src/extension/webview/protocol";
import { clear, h } from "../shared/dom";

let failures: { runDir: string; data: TraceFailures } | undefined;

export const failureSelect = h("select", { id: "failure-label-filter" }, h("option", { value: "" }, "any"));
/** Hidden until the run's labels arrive (an environment without labels never shows it). */
export const failureFilter = h("label", { id: "failure-filter-label", hidden: true }, "failure ", failureSelect);

/** The run's labels arrived (or the run changed: undefined). The chosen label stays when the new run has it. */
export function setFailures(runDir: string | undefined, data: TraceFailures | undefined): void {
  const chosen = failureSelect.value;
  failures = runDir && data ? { runDir, data } : undefined;
  clear(failureSelect);
  failureSelect.append(h("option", { value: "" }, "any"));
  for (const l of data?.labels ?? [])
    failureSelect.append(h("option", { value: l.label, title: l.description }, `${l.label} (${l.count})`));
  failureSelect.value = data?.labels.some((l) => l.label === chosen) ? chosen : "";
  failureFilter.hidden = !failures;
}

/** The episode ids with the chosen label, or undefined when no label is chosen (or the run has none). */
export function failureIds(runDir: string | undefined): Set<string> | undefined {
  const label = failureSelect.value;
  if (!failures || !label || failures.runDir !== runDir) return undefined;
  return new Set(
    Object.entries(failures.data.byId)
      .filter(([, v]) => v.label === label)
      .map(([id]) => id),
  );
}

/** The header's line for an episode: its label (sub-label) and the evidence; nothing for one that did not fail. */
export function failureLine(runDir: string | undefined, episodeId: string): HTMLElement[] {
  const v = failures && failures.runDir === runDir ? failures.data.byId[episodeId] : undefined;
  if (!v) return [];
  return [
    h(
      "div",
      { id: "failure-label", class: "failure-label" },
      h("span", { class: "label" }, "failure "),
      h("strong", { id: "failure-label-name" }, v.subLabel ? `${v.label} (${v.subLabel})` : v.label),
      " — ",
      h("span", { id: "failure-evidence" }, v.evidence),
    ),
  ];
}
