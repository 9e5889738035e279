/**
 * Trace viewer webview: the episode list (filters in the Runs tree's outcome names, full-text
 * search, virtualised rows, next/previous, a legend for every mark) beside one episode's token
 * stream under a sticky header, with its outcome, gold-in-results and drift — template drift in
 * red with the diff, non-canonical splits of sampled tokens as information counted per run,
 * special tokens the model emitted marked as such — and the search's hits highlighted.
 */
import type { TraceRunInfo } from "../../src/extension/webview/protocol";
import {
  filterRows,
  fromColumns,
  stepEpisode,
  visibleWindow,
  type EpisodeFilter,
  type EpisodeRow,
  type Outcome,
} from "../../src/core/views/trace/episode-list";
import { OUTCOME_LABELS, OUTCOME_MEANINGS, OUTCOMES, outcomeOf } from "../../src/core/base/runs/outcome";
import type { TraceEpisodeView } from "../../src/core/views/trace/trace-view";
import { UNKNOWN_ENV_VIEW as UNKNOWN_VIEW, type RunViewSpec } from "../../src/core/views/trace/run-view";
import {
  driftVerdict,
  NON_CANONICAL_EXPLAINED,
  type DriftReport,
  type RunDriftCounts,
} from "../../src/core/views/trace/drift";
import { append, clear, fmt, h, isChecked, usd } from "../shared/dom";
import { listen, loadingLine, markFirstFrame, send, savedState, timings } from "../shared/host";
import { attachTokenHover, highlightHits, markTokens, renderStream } from "./token-stream";
import { copyTableButtons } from "../shared/copy-table";
import { episodeTable } from "./episode-table";

/** "2 searches", "1 search": a count in words, not a code to learn. */
function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : noun.endsWith("h") ? "es" : "s"}`;
}

const searchesText = (n: number) => `${plural(n, "search")} in this episode`;
/** A row's searches mark: short enough for the row, still words ("2 searches"). */
const searchesShort = (n: number) => plural(n, "search");

/** A row's score on hover: the number, and what its colour says (the outcome). */
function scoreTitle(label: string, value: number, outcome: Outcome): string {
  return `${label} ${fmt(value, 3)} · coloured as ${OUTCOME_LABELS[outcome]}: ${OUTCOME_MEANINGS[outcome]}`;
}
import { failureFilter, failureIds, failureLine, onFailureFilterChange, setFailures } from "./failure-labels";

const ROW_HEIGHT = 26;
const OUTCOME_FILTERS: Outcome[] = [...OUTCOMES, "other"];

let run: TraceRunInfo | undefined;
let episode: TraceEpisodeView | undefined;
let visible: number[] = [];
let textIds: Set<string> | undefined;
let currentId: string | undefined = (() => {
  const s = savedState();
  return s?.kind === "trace" ? s.episodeId : undefined;
})();
let receivedAt = 0;
let searchSentAt = 0;

const app = document.getElementById("app")!;

// ---- left pane: filters and the list ----
const outcomeBoxes = OUTCOME_FILTERS.map((o) => {
  const box = h("vscode-checkbox", {
    label: OUTCOME_LABELS[o],
    checked: true,
    "data-outcome": o,
    class: `outcome-filter outcome-${o}`,
    title: OUTCOME_MEANINGS[o],
  });
  box.addEventListener("change", applyFilter);
  return box;
});
const numberField = (id: string, placeholder: string) => {
  const input = h("input", {
    type: "number",
    id,
    placeholder,
    class: "num",
    step: id.startsWith("f1") ? "0.1" : "1",
    min: "0",
  });
  input.addEventListener("input", applyFilter);
  return input;
};
const searchesMin = numberField("searches-min", "min");
const searchesMax = numberField("searches-max", "max");
// The primary metric's range filter; its ids (f1-min, f1-max) and the row cell's class are the page's DOM contract.
const primaryMin = numberField("f1-min", "min");
const primaryMax = numberField("f1-max", "max");
const goldSelect = h(
  "select",
  { id: "gold-filter" },
  h("option", { value: "" }, "any"),
  h("option", { value: "found" }, "gold in results"),
  h("option", { value: "missing" }, "gold not in results"),
  h("option", { value: "no_search" }, "no search"),
);
goldSelect.addEventListener("change", applyFilter);
onFailureFilterChange(applyFilter);
const textSearch = h("input", {
  type: "search",
  id: "text-search",
  placeholder: "Search questions, queries, results, answers…",
});
let searchTimer: ReturnType<typeof setTimeout> | undefined;
textSearch.addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    const q = textSearch.value.trim();
    if (!q) {
      textIds = undefined;
      applyFilter();
      showHits();
    } else {
      searchSentAt = performance.now();
      send({ type: "trace/search", query: q });
    }
  }, 200);
});
const countLine = h("div", { class: "count", id: "count" });
const keysHint = h(
  "div",
  { class: "muted keys-hint", id: "keys-hint" },
  h("kbd", null, "j"),
  " next · ",
  h("kbd", null, "k"),
  " previous episode (outside the text fields)",
);
const goldLine = h("div", { class: "gold-counts", id: "gold-counts" });
const prevButton = h("vscode-button", { secondary: true, id: "prev", title: "Previous episode (k)" }, "◀ Prev");
const nextButton = h("vscode-button", { secondary: true, id: "next", title: "Next episode (j)" }, "Next ▶");
prevButton.addEventListener("click", () => step(-1));
nextButton.addEventListener("click", () => step(1));
const listViewport = h("div", { class: "list-viewport", id: "episode-list", tabindex: 0, role: "listbox" });
const listSpacer = h("div", { class: "list-spacer" });
const listRows = h("div", { class: "list-rows" });
listViewport.append(listSpacer, listRows);
/**
 * The list's height and scroll position, kept here rather than read from the element when drawing:
 * a read forces a layout, and before a new panel's first frame that layout is the page's first
 * (style and layout of everything, about 30 ms of its first draw in Chromium). Until the list is
 * laid out its height is taken as the window's, which it cannot exceed.
 */
let listHeight = window.innerHeight;
let listScrollTop = 0;
new ResizeObserver((entries) => {
  const height = entries[entries.length - 1].contentRect.height; // the list has no padding
  const grew = height > listHeight;
  listHeight = height;
  if (grew) drawList();
}).observe(listViewport);
listViewport.addEventListener("scroll", () => {
  listScrollTop = listViewport.scrollTop;
  drawList();
});
listRows.addEventListener("click", (e) => {
  const row = (e.target as HTMLElement).closest<HTMLElement>(".row");
  if (row?.dataset.id) select(row.dataset.id);
});

const header = h("div", { class: "run-header", id: "run-header" });
// The run's environment decides what the list offers (run-view.ts): searches and gold-in-results
// only where the model searches, and the primary metric under its own name.
const searchesFilter = h("label", { id: "searches-filter" }, "searches ", searchesMin, " – ", searchesMax);
const goldFilter = h("label", { id: "gold-filter-label" }, "gold ", goldSelect);
const primaryFilterName = h("span", { id: "primary-filter-name" }, "F1 ");
const legendPrimary = h("span", { id: "legend-primary" }, " F1 of the prediction, coloured by outcome: ");
const driftLine = h("div", { class: "run-drift", id: "run-drift" });
/** What each mark in a list row means. */
const listLegend = h(
  "details",
  // Open: a number in two colours means nothing until the reader knows the colours are outcomes.
  { class: "list-legend", id: "list-legend", open: true },
  h("summary", null, "What the marks mean"),
  h(
    "ul",
    null,
    h(
      "li",
      null,
      h("span", { class: "f1" }, "0.67"),
      legendPrimary,
      ...OUTCOME_FILTERS.flatMap((o) => [
        h("span", { class: `outcome-key outcome-${o}`, title: OUTCOME_MEANINGS[o] }, OUTCOME_LABELS[o]),
        " ",
      ]),
    ),
    h(
      "li",
      { id: "legend-searches" },
      h("span", { class: "searches" }, searchesShort(2)),
      ": the searches the episode made",
    ),
    h(
      "li",
      { id: "legend-gold" },
      h("span", { class: "gold gold-found" }, "●"),
      " the gold answer is in the search results · ",
      h("span", { class: "gold gold-missing" }, "○"),
      " it is not (a retrieval failure) · ",
      h("span", { class: "gold" }, "·"),
      " no search, a yes/no question, or not checked yet",
    ),
  ),
);
const left = h(
  "aside",
  { class: "episodes" },
  header,
  driftLine,
  h(
    "div",
    { class: "filters" },
    h("div", { class: "filter-row" }, ...outcomeBoxes),
    searchesFilter,
    h("label", null, primaryFilterName, primaryMin, " – ", primaryMax),
    goldFilter,
    failureFilter,
    textSearch,
  ),
  h("div", { class: "nav" }, prevButton, nextButton, countLine),
  keysHint,
  goldLine,
  listLegend,
  listViewport,
);
const detail = h("section", { class: "episode", id: "episode" }, h("p", { class: "muted" }, "Pick an episode."));
const tooltip = h("div", { class: "tooltip", id: "tooltip", role: "tooltip", hidden: true });
const layout = h("div", { class: "trace-layout" }, left, detail);

/**
 * Puts the panes in the page with its first data, not when the script starts: in the page before
 * it, they were laid out and painted empty first, which held back the load event that VS Code
 * delivers the first data after (headless A/B, 15 pairs: script start → first frame with data
 * 77 → 30 ms). Compare and the dashboard build their pages with their data already.
 */
function showPanes(): void {
  if (layout.isConnected) return;
  clear(app);
  app.append(layout, tooltip);
}

document.addEventListener("keydown", (e) => {
  if ((e.target as HTMLElement).tagName === "INPUT") return;
  if (e.key === "j") step(1);
  if (e.key === "k") step(-1);
});

function num(input: HTMLInputElement): number | undefined {
  return input.value === "" ? undefined : Number(input.value);
}

function currentFilter(): EpisodeFilter {
  const outcomes = outcomeBoxes.filter(isChecked).map((b) => b.dataset.outcome as Outcome);
  return {
    outcomes,
    searches: { min: num(searchesMin), max: num(searchesMax) },
    primary: { min: num(primaryMin), max: num(primaryMax) },
    ...(goldSelect.value ? { gold: [goldSelect.value as "found"] } : {}),
    ...idsFilter(),
  };
}

/** The text search's hits and the failure label's episodes, both when both are set. */
function idsFilter(): { ids?: Set<string> } {
  const labelled = failureIds(run?.runDir);
  if (!labelled) return textIds ? { ids: textIds } : {};
  return { ids: textIds ? new Set([...labelled].filter((id) => textIds!.has(id))) : labelled };
}

/** Whether the list holds every row of the run (not only its first ones, with the rest on the way). */
function listIsWhole(r: TraceRunInfo): boolean {
  return r.total !== null && r.rows.length >= r.total;
}

function applyFilter(): void {
  if (!run) return;
  visible = filterRows(run.rows, currentFilter());
  // Until the rest of a long list is in, the filters see its first rows only: say so.
  const of = run.total === null ? "" : ` of ${run.total}`;
  countLine.textContent = listIsWhole(run)
    ? `${visible.length} of ${run.rows.length} episodes`
    : `${visible.length} of the first ${run.rows.length}${of} episodes (listing the rest…)`;
  const listLength = visible.length * ROW_HEIGHT;
  listSpacer.style.height = `${listLength}px`;
  // A shorter list pulls the scroll position back as the browser will (without reading it).
  listScrollTop = Math.min(listScrollTop, Math.max(0, listLength - listHeight));
  drawList();
}

/** Draws only the rows in view (plus a margin): 10,000 episodes cost what 40 do. */
function drawList(): void {
  if (!run) return;
  const { first, last } = visibleWindow(visible.length, listScrollTop, listHeight, ROW_HEIGHT);
  const view = runView(run);
  clear(listRows);
  listRows.style.transform = `translateY(${first * ROW_HEIGHT}px)`;
  for (let k = first; k < last; k++) {
    const r = run.rows[visible[k]];
    const row = h(
      "div",
      {
        class: `row outcome-${r.outcome}${r.id === currentId ? " current" : ""}`,
        "data-id": r.id,
        role: "option",
        title: r.question,
      },
      h("span", { class: "f1", title: scoreTitle(view.primary.label, r.primary, r.outcome) }, fmt(r.primary, 2)),
      view.searches
        ? h("span", { class: "searches", title: searchesText(r.searches) }, searchesShort(r.searches))
        : null,
      view.goldInResults
        ? h(
            "span",
            { class: `gold gold-${r.gold}`, title: `gold in results: ${r.gold}` },
            r.gold === "found" ? "●" : r.gold === "missing" ? "○" : "·",
          )
        : null,
      h("span", { class: "q" }, r.question),
    );
    listRows.appendChild(row);
  }
}

function step(direction: 1 | -1): void {
  if (!run) return;
  const id = stepEpisode(
    visible.map((i) => run!.rows[i].id),
    currentId,
    direction,
  );
  if (id) select(id);
}

function select(id: string): void {
  currentId = id;
  send({ type: "trace/select", episodeId: id });
  drawList();
}

/** The run's view; a run posted without one (an older host) shows every control, as before environments. */
function runView(r: TraceRunInfo | undefined): RunViewSpec {
  return r?.view ?? UNKNOWN_VIEW;
}

/** Shows the list's controls the run's environment offers, under its metric's name. */
function applyRunView(view: RunViewSpec): void {
  searchesFilter.hidden = !view.searches;
  goldFilter.hidden = !view.goldInResults;
  goldLine.hidden = !view.goldInResults;
  document.getElementById("legend-searches")!.hidden = !view.searches;
  document.getElementById("legend-gold")!.hidden = !view.goldInResults;
  primaryFilterName.textContent = `${view.primary.label} `;
  legendPrimary.textContent = ` ${view.primary.label} of the prediction, coloured by outcome: `;
  // A hidden filter must not keep filtering.
  if (!view.searches) searchesMin.value = searchesMax.value = "";
  if (!view.goldInResults) goldSelect.value = "";
}

function renderRunHeader(r: TraceRunInfo): void {
  applyRunView(runView(r));
  clear(header);
  header.append(
    h("div", { class: "run-name", title: r.runDir }, r.name),
    h("div", { class: "muted" }, [r.model, r.split].filter(Boolean).join(" · ")),
  );
  if (r.tokenizerProblem)
    header.append(h("div", { class: "warning" }, `Token text unavailable: ${r.tokenizerProblem}`));
  clear(goldLine);
  if (!runView(r).goldInResults) return;
  if (!r.gold) {
    goldLine.append(h("span", { class: "muted" }, "Checking whether gold answers were in the search results…"));
    return;
  }
  const g = r.gold;
  goldLine.append(
    h("div", { class: "gold-title" }, "Gold answer in search results"),
    h(
      "table",
      { class: "gold-table" },
      h("tr", null, h("th", null, ""), h("th", null, "right (F1 ≥ .5)"), h("th", null, "wrong")),
      h(
        "tr",
        null,
        h("th", null, "in results"),
        h("td", { id: "gold-found-right" }, g.foundRight),
        h("td", { id: "gold-found-wrong", title: "reading failures" }, `${g.foundWrong} reading`),
      ),
      h(
        "tr",
        null,
        h("th", null, "not in results"),
        h("td", { id: "gold-missing-right" }, g.missingRight),
        h("td", { id: "gold-missing-wrong", title: "retrieval failures" }, `${g.missingWrong} retrieval`),
      ),
    ),
    h(
      "div",
      { class: "muted", id: "gold-unchecked" },
      `${plural(g.noSearch, "episode")} answered without a search · ${plural(g.notApplicable, "yes/no question")} (a gold “yes” or “no” is in any text, so not checked)`,
    ),
  );
}

/** The binary and primary metric under the environment's names; one badge when they are one metric (no partial credit). */
function metricBadges(ep: TraceEpisodeView): HTMLElement[] {
  const v = ep.view ?? runView(run);
  if (v.oneMetric) return [badge(`${v.primary.label} ${ep.primary}`, ep.primary >= 1 ? "ok" : "bad")];
  return [
    badge(`${v.binary.label} ${ep.binary}`, ep.binary === 1 ? "ok" : "bad"),
    badge(`${v.primary.label} ${fmt(ep.primary, 2)}`, ep.primary >= 0.5 ? "ok" : "bad"),
  ];
}

/** The environment's notes on the episode (e.g. the extracted answer, the reference, the verdict), as text. */
function annotationNotes(ep: TraceEpisodeView): HTMLElement | null {
  const notes = ep.annotations?.notes ?? [];
  if (notes.length === 0) return null;
  return h(
    "div",
    { class: "annotations", id: "annotations" },
    ...notes.map((n) =>
      h(
        "div",
        { class: "annotation" },
        h("span", { class: "label" }, `${n.label} `),
        h("span", { class: "annotation-value" }, n.value),
      ),
    ),
  );
}

function badge(text: string, cls: string, title?: string): HTMLElement {
  return h("span", { class: `badge ${cls}`, ...(title ? { title } : {}) }, text);
}

/** `preview`: the token ids before the tokenizer is in; its frame is not "interactive". */
function renderEpisode(ep: TraceEpisodeView, preview = false): void {
  const started = performance.now();
  episode = ep;
  currentId = ep.id;
  clear(detail);
  const goldText = {
    found: "gold in results",
    missing: "gold NOT in results",
    no_search: "no search",
    not_applicable: "yes/no question",
    unknown: "gold check unavailable",
  }[ep.gold];
  const shade = h("vscode-checkbox", {
    id: "shade-logprobs",
    label: "shade by logprob",
    checked: !detail.classList.contains("no-shade"),
  });
  shade.addEventListener("change", () => detail.classList.toggle("no-shade", !isChecked(shade)));
  const outcome = outcomeOf(ep.end, ep.binary);
  append(detail, [
    h(
      "div",
      { class: "episode-head", id: "episode-head" },
      h(
        "div",
        { class: "muted head-run" },
        run ? [run.name, run.model, run.split].filter(Boolean).join(" · ") : "",
        " ",
        copyTableButtons("episode", () => episodeTable(ep, ep.view ?? runView(run), run?.name)),
      ),
      h("h2", { class: "question", id: "question" }, ep.question),
      h(
        "div",
        { class: "outcome" },
        h(
          "div",
          null,
          h("span", { class: "label" }, "prediction "),
          h("span", { id: "prediction", class: "prediction" }, ep.prediction || "(none)"),
        ),
        h(
          "div",
          null,
          h("span", { class: "label" }, "gold "),
          h("span", { id: "gold", class: "gold-answers" }, ep.answers.join(" | ")),
        ),
        annotationNotes(ep),
        ...failureLine(run?.runDir, ep.id),
        h(
          "div",
          { class: "badges" },
          badge(OUTCOME_LABELS[outcome], `outcome-badge outcome-${outcome}`, OUTCOME_MEANINGS[outcome]),
          ...metricBadges(ep),
          badge(`end: ${ep.end}`, ep.end === "answer" ? "ok" : "warn"),
          // Searches and gold-in-results mean something only where the model has a search tool.
          ...((ep.view ?? runView(run)).searches ? [badge(`${ep.searches.length} searches`, "muted")] : []),
          ...((ep.view ?? runView(run)).goldInResults
            ? [badge(goldText, ep.gold === "found" ? "ok" : ep.gold === "missing" ? "bad" : "muted")]
            : []),
          h(
            "span",
            { id: "drift-badge" },
            badge(ep.drift === null && !ep.decodeProblem ? "checking drift…" : "drift not checked", "muted"),
          ),
        ),
        h(
          "div",
          { class: "muted", id: "token-counts" },
          `${ep.sampledCount} sampled · ${ep.insertedCount} inserted · prefill ${ep.prefill} · generated ${ep.generated} · ${usd(ep.usd)}`,
        ),
      ),
      h("div", { class: "drift-detail", id: "drift-detail" }),
      h(
        "div",
        { class: "legend", id: "legend" },
        h("span", { class: "tok s", title: "a token the model sampled (trained on)" }, "model-sampled"),
        h(
          "span",
          {
            class: "tok i",
            title: "a token the harness inserted: prompt, search results, turn headers (not trained on)",
          },
          "harness-inserted",
        ),
        h("span", { class: "tok s lp1" }, "logprob ≥ −0.5"),
        h("span", { class: "tok s lp3" }, "≥ −3"),
        h("span", { class: "tok s lp4", title: "the sampler's logprob of the token: darker = less sure" }, "< −3"),
        h(
          "span",
          { class: "tok i drift", title: "inserted tokens that differ from the chat template: a stitching bug" },
          "template drift",
        ),
        h("span", { class: "tok s noncanon", title: NON_CANONICAL_EXPLAINED }, "non-canonical split"),
        h(
          "span",
          { class: "tok s special", title: "a special token the model emitted inside its reply" },
          "<|special|>",
        ),
        h("span", { class: "tok i hit", title: "a word of the text search" }, "search match"),
        ...(ep.marks?.length
          ? [
              h(
                "span",
                {
                  class: "tok s annot",
                  title: "what the environment marked in the reply (GSM8K: the graded \\boxed{} answer)",
                },
                ep.marks[0].label,
              ),
            ]
          : []),
        shade,
      ),
      h("div", { class: "muted", id: "hit-count" }),
    ),
    ep.decodeProblem ? h("div", { class: "warning" }, `Showing token ids: ${ep.decodeProblem}`) : null,
  ]);
  const { root, spans } = renderStream(ep);
  detail.append(root);
  if (ep.marks?.length)
    markTokens(
      root,
      ep,
      ep.marks.map((m) => m.range),
      "annot",
    );
  if (ep.drift) showDrift(ep.drift);
  else showHits();
  drawList();
  // Time to interactive: from the message's arrival to the first frame with the stream laid out.
  if (preview) {
    markFirstFrame("previewFrameAt");
    return;
  }
  requestAnimationFrame(() => {
    const ms = performance.now() - (receivedAt || started);
    timings.renderMs = ms;
    timings.spans = spans;
    timings.episodeFrameAt = Date.now();
    send({
      type: "trace/rendered",
      episodeId: ep.id,
      ms,
      spans,
      at: timings.episodeFrameAt,
      scriptAt: timings.scriptAt,
    });
  });
}

/** The drift check's verdict in the header, the diff when it is template drift, and the marks in the stream. */
function showDrift(drift: DriftReport): void {
  if (!episode) return;
  const total = episode.prompt.ids.length + episode.tokens.ids.length;
  const verdict = driftVerdict(drift);
  const holder = document.getElementById("drift-badge");
  if (holder) {
    clear(holder);
    if (verdict === "not-checked") holder.appendChild(badge("drift check failed", "warn", drift.problem));
    else if (verdict === "clean")
      holder.appendChild(badge("no drift", "ok", `re-rendering with the chat template gives the same ${total} tokens`));
    else if (verdict === "template-drift") {
      const n = drift.templateDriftTokens;
      holder.appendChild(
        badge(
          `TEMPLATE DRIFT${n ? `: ${n} inserted token${n === 1 ? "" : "s"} differ` : ""}`,
          "bad",
          "tokens the harness inserted are not what the chat template produces: the model is trained in another context than it is served in",
        ),
      );
    }
    if (
      drift.nonCanonicalTokens > 0 ||
      (drift.firstTextDifference?.writer === "sampled" && verdict !== "template-drift")
    ) {
      holder.appendChild(
        badge(
          `${drift.nonCanonicalTokens} sampled token${drift.nonCanonicalTokens === 1 ? "" : "s"} non-canonical`,
          "info",
          NON_CANONICAL_EXPLAINED,
        ),
      );
    }
    if (drift.emittedSpecial.length) {
      holder.appendChild(
        badge(
          `model emitted ${drift.emittedSpecial.length} special token${drift.emittedSpecial.length === 1 ? "" : "s"}`,
          "warn",
          "special tokens the model sampled inside its reply (boxed in the text): content it wrote, not turn structure",
        ),
      );
    }
  }
  const detailLine = document.getElementById("drift-detail");
  if (detailLine) {
    clear(detailLine);
    const d = drift.firstTextDifference;
    if (d && d.writer === "inserted") {
      detailLine.className = "drift-detail bad";
      append(detailLine, [
        `Template drift from token ${d.tokenIndex}: the template gives `,
        h("code", null, JSON.stringify(d.expected)),
        ", the harness inserted ",
        h("code", null, JSON.stringify(d.recorded)),
      ]);
    } else if (verdict === "template-drift") {
      detailLine.className = "drift-detail bad";
      const [a, b] = drift.templateDrift[0];
      const ids = [...episode.prompt.ids, ...episode.tokens.ids].slice(a, b);
      append(detailLine, [
        `Template drift at tokens ${a}–${b - 1}: same text, other ids than the template's tokenization (`,
        h("code", null, ids.join(" ")),
        ")",
      ]);
    } else if (d) {
      detailLine.className = "drift-detail info";
      append(detailLine, [
        `The template would render the model's reply otherwise from token ${d.tokenIndex} (`,
        h("code", null, JSON.stringify(d.expected)),
        " vs sampled ",
        h("code", null, JSON.stringify(d.recorded)),
        "): harmless, training uses what was sampled.",
      ]);
    } else if (drift.nonCanonicalTokens > 0) {
      detailLine.className = "drift-detail info";
      detailLine.textContent = NON_CANONICAL_EXPLAINED;
    }
  }
  const stream = document.getElementById("stream");
  if (stream) {
    markTokens(stream, episode, drift.templateDrift, "drift");
    markTokens(stream, episode, drift.nonCanonical, "noncanon");
    markTokens(
      stream,
      episode,
      drift.emittedSpecial.map((i) => [i, i + 1] as [number, number]),
      "special",
    );
  }
  showHits();
}

function showRunDrift(counts: RunDriftCounts, total: number): void {
  clear(driftLine);
  const done = counts.checked < total ? ` (${counts.checked} of ${total} checked)` : "";
  append(driftLine, [
    h(
      "span",
      { class: counts.templateDrift ? "bad" : "ok", id: "run-template-drift" },
      `template drift in ${counts.templateDrift} episode${counts.templateDrift === 1 ? "" : "s"}`,
    ),
    " · ",
    h(
      "span",
      { class: "info", id: "run-noncanonical", title: NON_CANONICAL_EXPLAINED },
      `non-canonical sampled tokens in ${counts.nonCanonical} (${counts.nonCanonicalTokens} tokens, harmless)`,
    ),
    counts.emittedSpecial ? ` · special tokens emitted in ${counts.emittedSpecial}` : "",
    done,
  ]);
}

/** Marks the text search's words in the episode's text and opens the sections that hold them. */
function showHits(): void {
  const stream = document.getElementById("stream");
  if (!stream || !episode) return;
  const q = textSearch.value.trim();
  const n = highlightHits(stream, episode, q && textIds?.has(episode.id) !== false ? q : "");
  const line = document.getElementById("hit-count");
  if (line) line.textContent = q ? `${n} match${n === 1 ? "" : "es"} of “${q}” in this episode` : "";
}

// Hover: one listener for every token.
attachTokenHover(detail, tooltip, () => episode);

/** Another run in this panel: nothing of the last one stays (the filters do: they are the reader's). */
function startOver(episodeId: string | undefined): void {
  run = episode = textIds = undefined;
  setFailures(undefined, undefined);
  visible = [];
  currentId = episodeId;
  receivedAt = searchSentAt = 0;
  textSearch.value = "";
  for (const el of [header, driftLine, goldLine, countLine, listRows]) clear(el);
  listSpacer.style.height = "0px";
  listViewport.scrollTop = listScrollTop = 0; // another run's list starts at its top
  clear(detail);
  detail.append(loadingLine());
}

listen((m) => {
  showPanes();
  if (m.type === "retarget") {
    if (m.state.kind === "trace") startOver(m.state.episodeId);
  } else if (m.type === "trace/run") {
    // The same run again (its gold marks, more episodes): keep the rows past the new message's
    // first ones until its trace/rows replaces them, so the list does not shrink meanwhile.
    const before: EpisodeRow[] = run?.runDir === m.run.runDir ? run.rows : [];
    const rows = listIsWhole(m.run)
      ? m.run.rows
      : m.run.rows.concat(before.slice(m.run.rows.length, m.run.total ?? undefined));
    run = { ...m.run, rows };
    renderRunHeader(m.run);
    applyFilter();
    markFirstFrame("listFrameAt");
    if (listIsWhole(m.run)) markFirstFrame("listWholeFrameAt");
  } else if (m.type === "trace/rows") {
    if (!run || m.runDir !== run.runDir || m.from > run.rows.length) return; // another run's, or not after what is here
    run.rows = run.rows.slice(0, m.from).concat(fromColumns(m.rows));
    applyFilter();
    markFirstFrame("listWholeFrameAt");
  } else if (m.type === "trace/episode") {
    receivedAt = performance.now();
    timings.buildMs = m.buildMs;
    renderEpisode(m.episode, m.preview === true);
  } else if (m.type === "trace/drift") {
    if (episode?.id === m.episodeId) showDrift(m.drift);
  } else if (m.type === "trace/searchResult") {
    if (m.query !== textSearch.value.trim()) return;
    textIds = new Set(m.ids);
    applyFilter();
    showHits();
    // Query sent → filtered list drawn (the typing debounce before the send is not in it).
    if (searchSentAt) {
      const sent = searchSentAt;
      requestAnimationFrame(() => (timings.searchMs = performance.now() - sent));
    }
  } else if (m.type === "trace/driftCounts") {
    showRunDrift(m.counts, m.total);
  } else if (m.type === "trace/failures") {
    if (run && m.runDir !== run.runDir) return; // another run's
    setFailures(m.runDir, m.failures);
    applyFilter();
    // The episode already drawn gets its line in place (redrawing it would redo its token stream).
    const badges = detail.querySelector(".episode-head .outcome .badges");
    if (episode && badges && !detail.querySelector("#failure-label"))
      badges.before(...failureLine(run?.runDir, episode.id));
  }
});
