/**
 * The trace viewer's failure labels (the run's environment's rules, computed by the host when the
 * run is read): a list filter by label (a button per label, with its count), and the episode header's label
 * and evidence. A component of its own so the list and header code only call into it. Every text
 * goes in as a text node (h()), never as markup: evidence quotes model and dataset text.
 */
import type { TraceFailures } from "../../src/extension/webview/protocol";
import { clear, h } from "../shared/dom";

let failures: { runDir: string; data: TraceFailures } | undefined;
let chosen = "";
let onChange: () => void = () => undefined;

/** One button per label with its count (pressed: the list shows only that label's episodes); hidden until the run's labels arrive. */
export const failureFilter = h("div", { id: "failure-filter", class: "filter-row failure-filter", hidden: true });

/** What to redraw when the chosen label changes (the list's filter). */
export function onFailureFilterChange(f: () => void): void {
  onChange = f;
}

/** The run's labels arrived (or the run changed: undefined). The chosen label stays when the new run has it. */
export function setFailures(runDir: string | undefined, data: TraceFailures | undefined): void {
  failures = runDir && data ? { runDir, data } : undefined;
  if (!data?.labels.some((l) => l.label === chosen)) chosen = "";
  clear(failureFilter);
  if (failures) failureFilter.append(h("span", { class: "label" }, "failure "));
  for (const l of data?.labels ?? []) {
    const button = h(
      "button",
      {
        class: "failure-chip",
        "data-label": l.label,
        title: l.description,
        "aria-pressed": l.label === chosen ? "true" : "false",
      },
      `${l.label} ${l.count}`,
    );
    button.addEventListener("click", () => {
      chosen = chosen === l.label ? "" : l.label;
      for (const b of failureFilter.querySelectorAll("button"))
        b.setAttribute("aria-pressed", b.dataset.label === chosen ? "true" : "false");
      onChange();
    });
    failureFilter.append(button);
  }
  failureFilter.hidden = !failures;
}

/** The episode ids with the chosen label, or undefined when no label is chosen (or the run has none). */
export function failureIds(runDir: string | undefined): Set<string> | undefined {
  const label = chosen;
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
