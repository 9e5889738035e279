/**
 * Compare webview: the "expected to differ" control (preset from how the comparison was opened),
 * fingerprint warnings, the system prompts' diff when they differ, the ablation table (signed Δ
 * with paired CIs in the CLI's own format; less-used columns behind a toggle so it fits 1280 px), a
 * forest plot per metric, the per-question flips with gold answers, a flip's pair view (both
 * episodes in this panel, aligned turn by turn) and pinned questions across every run. Every label
 * is one the report's metric declarations give (compare-metrics.ts): its primary and binary metric,
 * or one right/wrong metric once.
 */
import type {
  AblationReport,
  DeltaResult,
  Interval,
  MetricRole,
  QuestionRow,
} from "../../src/core/steps/ablate/report-types";
import { compareMetrics, NO_REPORT_METRICS, type CompareMetrics } from "../../src/core/steps/ablate/compare-metrics";
import { ORIGIN_LABELS } from "../../src/core/steps/ablate/compare-origin";
import { flipRole, listedFlips } from "../../src/core/steps/ablate/compare-shown";
import type { FailureComparison } from "../../src/extension/webview/protocol";
import { failureSection } from "./failure-table";
import type { PromptDiff } from "../../src/core/steps/ablate/compare-setup";
import { deltaCell, f3, formatP, intervalText, signed } from "../../src/core/steps/ablate/format";
import type { PairTurnSide, PairView } from "../../src/core/views/trace/pair-view";
import type { CompareSetup } from "../../src/extension/webview/protocol";
import { chartFigure, forestPlot } from "../shared/charts";
import { copyTableButtons, domTable } from "../shared/copy-table";
import { append, clear, fmt, h, usd } from "../shared/dom";
import { listen, loadingLine, markFirstFrame, send, timings } from "../shared/host";

const app = document.getElementById("app")!;
let report: AblationReport | undefined;
/** What the report's environment calls its numbers, set with each report. */
let metrics: CompareMetrics = NO_REPORT_METRICS;
let setup: CompareSetup | undefined;
/** The report is the table before its intervals (the worker is resampling): those cells say so. */
let intervalsPending = false;
/** The comparison whose flips are listed; undefined: the last one (the latest stage against the baseline). */
let comparison: number | undefined;
let moreColumns = false;
/** The flip whose pair view is open (or loading), and what arrived for it. */
let pairRequest: { questionId: string; runs: [number, number] } | undefined;
let pair: PairView | undefined;
const pinned: string[] = [];

function expectedControl(s: CompareSetup): HTMLElement {
  const checked = new Set(s.expect);
  const boxes = s.fields.map((f) => {
    const box = h("input", {
      type: "checkbox",
      value: f.field,
      class: "expect-field",
      id: `expect-${f.field}`,
      ...(checked.has(f.field) ? { checked: true } : {}),
    });
    box.addEventListener("change", () => {
      const chosen = Array.from(document.querySelectorAll<HTMLInputElement>("#expected .expect-field"))
        .filter((b) => b.checked)
        .map((b) => b.value);
      send({ type: "compare/setExpect", expect: chosen });
    });
    return h(
      "label",
      { class: "expect-item", for: `expect-${f.field}` },
      box,
      h("code", null, f.field),
      h("span", { class: "muted" }, ` (${f.runs.join(", ")})`),
    );
  });
  return h(
    "fieldset",
    { id: "expected", class: "expected" },
    h("legend", null, "Expected to differ"),
    s.fields.length
      ? h(
          "span",
          { class: "muted" },
          `Opened to compare ${ORIGIN_LABELS[s.origin]}: ticked fields are the thing under test and raise no warning. `,
        )
      : h("span", { class: "muted" }, "The runs' fingerprints are identical: nothing differs but the runs themselves."),
    ...boxes,
  );
}

/** The runs' environment, always: it is part of every fingerprint, though ablate never pairs two of them. */
function environmentLine(r: AblationReport): HTMLElement {
  const env = r.environment;
  return h(
    "div",
    { class: "muted", id: "environment" },
    "environment ",
    h("code", null, `${env.name} v${env.version}`),
    " (the same for every run: runs of different environments are never paired)",
  );
}

function warnings(r: AblationReport): HTMLElement {
  // ablate's warnings already name every unexpected fingerprint difference, per run.
  const items = r.warnings;
  return h(
    "div",
    { class: items.length ? "warnings" : "warnings none", id: "warnings" },
    items.length
      ? h("strong", null, "Comparability warnings")
      : h("span", { class: "muted" }, "Fingerprints match, apart from the fields expected to differ."),
    items.length ? h("ul", null, ...items.map((w) => h("li", { title: wholeValues(r, w) }, w))) : null,
  );
}

/**
 * A warning's differing values in full, for its hover: the warning shortens each value (a
 * checkpoint path runs to 40 characters and more), the comparison's own differences do not.
 */
function wholeValues(r: AblationReport, warning: string): string | undefined {
  const c = r.comparisons.find((x) => warning.startsWith(`${x.name} differs from `));
  if (!c?.unexpected_differences.length) return undefined;
  const text = (v: unknown) => (v === undefined ? "(absent)" : typeof v === "string" ? v : JSON.stringify(v));
  return c.unexpected_differences.map((d) => `${d.field}: ${text(d.a)} → ${text(d.b)}`).join("\n");
}

function promptText(d: PromptDiff["baseline"]): string {
  return `${d.file} (sha256 ${d.sha256.slice(0, 12)})`;
}

function promptDiffs(prompts: PromptDiff[], baseline: string): HTMLElement | null {
  if (prompts.length === 0) return null;
  return h(
    "div",
    { id: "prompt-diffs", class: "prompt-diffs" },
    ...prompts.map((d) => {
      const body = d.lines
        ? h(
            "pre",
            { class: "prompt-diff" },
            ...d.lines.map((l) =>
              h(
                "div",
                { class: `diff-${l.op}` },
                `${l.op === "added" ? "+ " : l.op === "removed" ? "- " : "  "}${l.text}`,
              ),
            ),
          )
        : h(
            "p",
            { class: "muted" },
            `The text of ${[d.baseline, d.other]
              .filter((p) => p.text === null)
              .map(promptText)
              .join(" and ")} is not on disk any more ` +
              "(no file of that name holds that hash: the file was edited after the run), so only the hashes can be compared.",
          );
      return h(
        "details",
        { open: true, class: "prompt-diff-block" },
        h("summary", null, `System prompt: ${baseline} ${promptText(d.baseline)} → ${d.run} ${promptText(d.other)}`),
        body,
      );
    }),
  );
}

/** A table cell; `more` cells are the less-used columns, shown with the toggle. */
function cell(text: string | number, more = false, cls = ""): HTMLElement {
  return h("td", { class: `${more ? "more " : ""}${cls}`.trim() || undefined }, ...wrappable(text));
}

/**
 * "0.370 [0.305, 0.434]" as the number and its interval kept whole: the cell may wrap between
 * them (so the table reflows into a narrow panel instead of scrolling), never inside the interval.
 */
function wrappable(text: string | number): (string | HTMLElement)[] {
  const m = typeof text === "string" ? /^(\S+) (\[[^\]]+\])$/.exec(text) : null;
  return m ? [`${m[1]} `, h("span", { class: "interval" }, m[2])] : [String(text)];
}

type Column = {
  head: string;
  more: boolean;
  cell: (run: AblationReport["runs"][number], c: AblationReport["comparisons"][number] | undefined) => HTMLElement;
};

const verdictClass = (v: string | undefined) => (v ? `verdict verdict-${v.replace(/\s+/g, "-")}` : "");

/**
 * What a cell of a resampled number shows while the resamples run: an interval or a test's own p
 * that the table came with (the runs' Compare caches remember them) is final; Holm's p and the
 * verdicts need every test's p.
 */
const PENDING = "…";
const ci = (x: Interval) => (intervalsPending && Number.isNaN(x.lo) ? `[${PENDING}]` : intervalText(x));
const delta = (d: Pick<DeltaResult, "delta" | "ci">) =>
  intervalsPending && Number.isNaN(d.ci.lo) ? `${signed(d.delta)} [${PENDING}]` : deltaCell(d);
const testP = (p: number) => (intervalsPending && Number.isNaN(p) ? PENDING : formatP(p));
const holmP = (p: number) => (intervalsPending ? PENDING : formatP(p));
const verdictText = (v: string) => (intervalsPending ? PENDING : v);
const verdictOf = (v: string | undefined) => (intervalsPending ? "" : verdictClass(v));

/** The table's columns for `m`: primary and binary, or the one metric (from the binary statistics, as ablate prints it); searches only with tools. */
function columns(m: CompareMetrics): Column[] {
  const col = (head: string, more: boolean, cell: Column["cell"]): Column => ({ head, more, cell });
  const binary = [
    // The cells' classes (delta-em, delta-f1) are the panel's DOM contract with its probes, kept from format 1.
    col(`Δ ${m.binary} [paired CI]`, false, (_, c) => cell(c ? delta(c.binary) : "–", false, "delta-em")),
    col(m.one ? "p Holm" : `p ${m.binary} (Holm)`, !m.one, (_, c) =>
      cell(c ? (m.one ? holmP(c.binary.p_holm) : `${formatP(c.binary.p)} (${holmP(c.binary.p_holm)})`) : "–", !m.one),
    ),
    col(m.one ? "verdict" : `verdict ${m.binary}`, false, (_, c) =>
      cell(c ? verdictText(c.binary.verdict) : "–", false, verdictOf(c?.binary.verdict)),
    ),
  ];
  const head = [
    col("n", false, (run) => cell(run.episodes - run.dropped)),
    ...(m.one
      ? []
      : [col(`${m.primary} [95% CI]`, false, (run) => cell(`${f3(run.primary.mean)} ${ci(run.primary.ci)}`))]),
    col(`${m.binary} [95% CI]`, false, (run) => cell(`${f3(run.binary.mean)} ${ci(run.binary.ci)}`)),
  ];
  const primary = m.one
    ? []
    : [
        col(`Δ ${m.primary} [paired CI]`, false, (_, c) => cell(c ? delta(c.primary) : "–", false, "delta-f1")),
        col("p Holm", false, (_, c) => cell(c ? holmP(c.primary.p_holm) : "–")),
        col(`verdict ${m.primary}`, false, (_, c) =>
          cell(c ? verdictText(c.primary.verdict) : "–", false, verdictOf(c?.primary.verdict)),
        ),
      ];
  const rest = [
    ...(m.one
      ? [col("p", true, (_, c) => cell(c ? formatP(c.binary.p) : "–", true))]
      : [col(`p ${m.primary}`, true, (_, c) => cell(c ? testP(c.primary.p) : "–", true))]),
    col("McNemar b/c", true, (_, c) => cell(c ? `${c.binary.baseline_only}/${c.binary.run_only}` : "–", true)),
    // With one 0/1 metric in both roles the primary role holds the same scores, so its MDE is the metric's.
    col(`MDE ${m.primary}`, true, (_, c) => cell(c ? f3(c.primary.mde) : "–", true)),
    ...(m.hasTools ? [col("searches/q", true, (run) => cell(fmt(run.searches_per_q, 2), true))] : []),
    col("answered", true, (run) => cell(`${Math.round(run.answered * 100)}%`, true)),
    col("$/q", true, (run) => cell(usd(run.usd_per_q), true)),
  ];
  // Two metrics: the primary Δ first, the binary one after it, the binary p with the less-used columns.
  return m.one
    ? [...head, ...binary, ...rest]
    : [...head, ...primary, binary[0], binary[2], rest[0], rest[1], binary[1], ...rest.slice(2)];
}

function table(r: AblationReport): HTMLElement {
  const cols = columns(metrics);
  const rows = r.runs.map((run, i) => {
    const c = i === 0 ? undefined : r.comparisons.find((x) => x.run === i);
    return h(
      "tr",
      { class: i === 0 ? "baseline" : "" },
      h("th", { scope: "row" }, run.name, i === 0 ? h("span", { class: "muted" }, " (baseline)") : null),
      ...cols.map((col) => col.cell(run, c)),
    );
  });
  const head: [string, boolean][] = [["run", false], ...cols.map((c): [string, boolean] => [c.head, c.more])];
  const t = h(
    "table",
    { class: `ablation${moreColumns ? " show-more" : ""}`, id: "ablation-table" },
    h("thead", null, h("tr", null, ...head.map(([x, more]) => h("th", { class: more ? "more" : undefined }, x)))),
    h("tbody", null, ...rows),
  );
  const toggle = h(
    "vscode-button",
    { secondary: true, id: "more-columns" },
    moreColumns ? "Fewer columns" : `More columns (p, b/c, MDE, ${metrics.hasTools ? "searches, " : ""}answered, $/q)`,
  );
  toggle.addEventListener("click", () => {
    moreColumns = !moreColumns;
    render();
  });
  const s = r.settings;
  const method = intervalsPending
    ? h(
        "p",
        { class: "muted pending", id: "method" },
        `Intervals: computing ${s.resamples.toLocaleString("en-US")} resamples (${s.level * 100}% percentile bootstrap, seed ${s.seed}). ` +
          "The numbers shown are final; the intervals, p-values and verdicts marked … follow, with agent-lab ablate's digits.",
      )
    : h(
        "p",
        { class: "muted", id: "method" },
        `Intervals: ${s.level * 100}% percentile bootstrap, ${s.resamples.toLocaleString("en-US")} resamples, seed ${s.seed}; Δ paired — the settings and digits of agent-lab ablate.`,
      );
  return h(
    "div",
    { class: "table-block" },
    h("div", { class: "table-scroll" }, t),
    h(
      "div",
      { class: "table-tools" },
      toggle,
      copyTableButtons("compare-table", () =>
        domTable(`Compare · ${r.runs.map((x) => x.name).join(" vs ")}`, t, [
          `${r.shared} shared questions; ${method.textContent ?? ""}`,
          r.verdict_rule,
        ]),
      ),
    ),
    method,
  );
}

/** An export file name for a metric label ("accuracy" → "delta-accuracy"). */
const chartName = (label: string) => `delta-${label.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;

function forest(r: AblationReport): HTMLElement {
  if (intervalsPending)
    return h(
      "div",
      { class: "charts", id: "forest" },
      h("p", { class: "muted" }, "The forest plot of Δ follows with the intervals."),
    );
  const plot = (which: MetricRole) => {
    const label = metrics[which];
    const rows = r.comparisons.map((c) => ({
      label: c.name,
      delta: c[which].delta,
      lo: c[which].ci.lo,
      hi: c[which].ci.hi,
      verdict: c[which].verdict,
    }));
    return chartFigure(chartName(label), forestPlot(`Δ ${label} vs ${r.runs[0].name}`, rows));
  };
  return h(
    "div",
    { class: "charts", id: "forest" },
    ...(metrics.one ? [plot("binary")] : [plot("primary"), plot("binary")]),
  );
}

/** The role the flips and per-question scores use. */
const flipMetric = (): MetricRole => (report ? flipRole(report) : "primary");

function openPair(q: QuestionRow, runIndex: number): void {
  pairRequest = { questionId: q.id, runs: [0, runIndex] };
  pair = undefined;
  send({ type: "compare/openPair", questionId: q.id, runs: [0, runIndex] });
  render();
  document.getElementById("pair")?.scrollIntoView?.({ block: "start" });
}

function flipItem(q: QuestionRow, runIndex: number): HTMLElement {
  const k = flipMetric();
  const delta = q[k][runIndex] - q[k][0];
  const item = h(
    "li",
    { class: "flip", "data-id": q.id, tabindex: 0, title: "open both episodes, aligned turn by turn" },
    h("span", { class: "q" }, q.question),
    h("span", { class: "gold" }, ` gold: ${q.answers.join(" | ")}`),
    h(
      "span",
      { class: "muted" },
      ` · ${metrics[k]} ${fmt(q[k][0], 2)} → ${fmt(q[k][runIndex], 2)} (${delta >= 0 ? "+" : "−"}${Math.abs(delta).toFixed(2)}) · `,
    ),
    h("span", { class: "pred" }, `“${q.prediction[0]}” → “${q.prediction[runIndex]}”`),
  );
  const pin = h("vscode-button", { secondary: true, class: "pin", title: "pin: this question across all runs" }, "Pin");
  pin.addEventListener("click", (e) => {
    e.stopPropagation();
    if (!pinned.includes(q.id)) pinned.push(q.id);
    render();
  });
  item.appendChild(pin);
  item.addEventListener("click", () => openPair(q, runIndex));
  item.addEventListener("keydown", (e) => {
    if (e.key === "Enter") openPair(q, runIndex);
  });
  return item;
}

/** The picked comparison, or the last pair: in a pipeline's 4 runs, the stage that matters most (GRPO) rather than the first (often 0/0). */
function shownComparison(r: AblationReport): number {
  return comparison !== undefined && comparison < r.comparisons.length ? comparison : r.comparisons.length - 1;
}

/**
 * Flip rows drawn in the frame that shows the report; the rest are added after it. Each row holds a
 * button element, and the 1,000 rows of two 10,000-question runs made up most of the time a reused
 * panel took to lay out the report; the rows past the first are below the table, off screen.
 */
const FLIP_ROWS_FIRST = 50;
/**
 * While the table's intervals are being drawn, the rest of the rows wait this long: the report
 * with its intervals (a few hundred ms later when the runs' caches remember their draws) lays the
 * lists out again, and the rows laid out between the two (~100 ms at 10,000 questions) held it back.
 */
const REST_WHILE_PENDING_MS = 1000;

function flipList(id: string, rows: readonly QuestionRow[], runIndex: number): HTMLElement {
  const list = h("ul", { id }, ...rows.slice(0, FLIP_ROWS_FIRST).map((q) => flipItem(q, runIndex)));
  if (rows.length > FLIP_ROWS_FIRST)
    requestAnimationFrame(() =>
      setTimeout(
        () => {
          // Drawn again since (a pin, the labels, another comparison): that render made its own rows.
          if (list.isConnected) list.append(...rows.slice(FLIP_ROWS_FIRST).map((q) => flipItem(q, runIndex)));
        },
        intervalsPending ? REST_WHILE_PENDING_MS : 0,
      ),
    );
  return list;
}

function flips(r: AblationReport): HTMLElement {
  const shown = shownComparison(r);
  const c = r.comparisons[shown];
  if (!c) return h("div", { class: "muted" }, "One run: nothing to compare.");
  const idx = r.comparisons.indexOf(c);
  const k = flipMetric();
  // The host sends only the rows these lists show (compare-shown.ts); the counts are the comparison's.
  const improved = listedFlips(r, idx, "improved");
  const regressed = listedFlips(r, idx, "regressed");
  const picker = h(
    "select",
    { id: "comparison-picker" },
    ...r.comparisons.map((x, i) =>
      h("option", { value: i, ...(i === shown ? { selected: true } : {}) }, `${x.name} vs ${r.runs[0].name}`),
    ),
  );
  picker.addEventListener("change", () => {
    comparison = Number(picker.value);
    render();
  });
  return h(
    "div",
    { class: "flips", id: "flips" },
    h("h3", null, `Per-question flips (${metrics[k]}) `, picker),
    h(
      "div",
      { class: "flip-columns" },
      h("div", null, h("h4", null, `Improved (${c.flips[k].improved})`), flipList("improved", improved, c.run)),
      h("div", null, h("h4", null, `Regressed (${c.flips[k].regressed})`), flipList("regressed", regressed, c.run)),
    ),
  );
}

/** One episode's scores in the declarations' words: "<primary> 0.67 · <binary> 0", or "<metric> 1". */
function scoreText(primary: number, binary: number, sep = " · "): string {
  return metrics.one
    ? `${metrics.binary} ${binary}`
    : `${metrics.primary} ${fmt(primary, 2)}${sep}${metrics.binary} ${binary}`;
}

function turnCell(s: PairTurnSide | undefined, cls: string): HTMLElement {
  if (!s) return h("div", { class: `pair-cell ${cls} ended muted` }, "(episode had ended)");
  return h(
    "div",
    { class: `pair-cell ${cls}` },
    s.action ? h("span", { class: `action action-${s.action.replace(/[^a-z_]/gi, "")}` }, s.action) : null,
    h("pre", { class: "reply", title: "text the model wrote" }, s.reply),
    s.query !== undefined ? h("div", { class: "query" }, "search: ", h("code", null, s.query)) : null,
    s.hits.length ? h("ol", { class: "hits" }, ...s.hits.map((t) => h("li", null, t))) : null,
    s.inserted && s.query === undefined
      ? h(
          "details",
          { class: "inserted" },
          h("summary", { class: "muted" }, "inserted by the harness"),
          h("pre", null, s.inserted),
        )
      : null,
    s.inserted && s.query !== undefined
      ? h(
          "details",
          { class: "inserted" },
          h("summary", { class: "muted" }, "results as the model saw them"),
          h("pre", null, s.inserted),
        )
      : null,
  );
}

function pairSection(): HTMLElement | null {
  if (!pairRequest) return null;
  const close = h("vscode-button", { secondary: true, id: "pair-close" }, "Close");
  close.addEventListener("click", () => {
    pairRequest = undefined;
    pair = undefined;
    render();
  });
  if (!pair || pair.questionId !== pairRequest.questionId) {
    return h(
      "section",
      { id: "pair", class: "pair loading" },
      h("p", { class: "muted" }, "Loading both episodes…"),
      close,
    );
  }
  const p = pair;
  const req = pairRequest;
  const openTrace = (k: 0 | 1) => {
    const b = h(
      "vscode-button",
      { secondary: true, class: "open-trace", "data-run": req.runs[k] },
      `Full trace: ${p.sides[k].run}`,
    );
    b.addEventListener("click", () => send({ type: "compare/openTrace", questionId: p.questionId, run: req.runs[k] }));
    return b;
  };
  const sideHead = (k: 0 | 1) => {
    const s = p.sides[k];
    return h(
      "div",
      { class: `pair-cell pair-head side-${k === 0 ? "a" : "b"}` },
      h("strong", null, s.run),
      h("div", null, `“${s.prediction}”`),
      h(
        "div",
        { class: "muted" },
        `${scoreText(s.primary, s.binary)} · ${s.end} · ${metrics.hasTools ? `${s.searches} searches · ` : ""}${s.generated} tokens generated`,
      ),
      s.decodeProblem ? h("div", { class: "muted" }, `Shown as token ids: ${s.decodeProblem}`) : null,
    );
  };
  return h(
    "section",
    { id: "pair", class: "pair" },
    h("div", { class: "pair-title" }, h("h3", null, p.question), close),
    h("div", { class: "gold" }, `gold: ${p.answers.join(" | ")}`),
    p.samePrompt
      ? null
      : h("div", { class: "muted" }, "The two episodes started from different prompts (see the prompt diff above)."),
    h(
      "div",
      { class: "pair-grid", id: "pair-grid" },
      h("div", { class: "turn-label" }),
      sideHead(0),
      sideHead(1),
      ...p.turns.flatMap((t) => [
        h("div", { class: "turn-label" }, `turn ${t.turn}`),
        turnCell(t.a, "side-a"),
        turnCell(t.b, "side-b"),
      ]),
    ),
    h("div", { class: "pair-tools" }, openTrace(0), openTrace(1)),
  );
}

function pins(r: AblationReport): HTMLElement | null {
  if (pinned.length === 0) return null;
  return h(
    "div",
    { class: "pins", id: "pins" },
    h("h3", null, "Pinned questions"),
    ...pinned.map((id) => {
      const q = r.questions.find((x) => x.id === id);
      if (!q) return null;
      const unpin = h("vscode-button", { secondary: true }, "Unpin");
      unpin.addEventListener("click", () => {
        pinned.splice(pinned.indexOf(id), 1);
        render();
      });
      return h(
        "div",
        { class: "pin-card" },
        h("div", { class: "q" }, q.question, " ", unpin),
        h("div", { class: "muted" }, `gold: ${q.answers.join(" | ")}`),
        h(
          "ol",
          null,
          ...r.runs.map((run, i) =>
            h(
              "li",
              null,
              h("strong", null, run.name),
              `: “${q.prediction[i]}” ${scoreText(q.primary[i], q.binary[i], " ")}`,
            ),
          ),
        ),
      );
    }),
  );
}

/** The runs' failure labels compared (they arrive after the report). */
let failures: FailureComparison | undefined;
/** The prompt loop (edit → rerun → Compare) opens on the label table: scrolled to once per comparison. */
let failuresShown = false;

function render(): void {
  if (!report || !setup) return;
  clear(app);
  append(app, [
    h("h2", null, `Compare ${report.runs.length} runs on ${report.shared} shared questions`),
    environmentLine(report),
    expectedControl(setup),
    warnings(report),
    promptDiffs(setup.prompts, report.runs[0].name),
    table(report),
    h("p", { class: "muted" }, report.verdict_rule),
    ...failureSection(failures),
    forest(report),
    pairSection(),
    pins(report),
    flips(report),
  ]);
}

listen((m) => {
  if (m.type === "compare/report") {
    report = m.report;
    metrics = compareMetrics(m.report);
    setup = m.setup;
    intervalsPending = m.intervalsPending === true;
    // When the first report arrived and how long it took to lay out (bench/panels splits a reused panel's time by them).
    const arrived = performance.now();
    if (!("reportAt" in timings)) timings.reportAt = Date.now();
    render();
    if (!("renderMs" in timings)) timings.renderMs = performance.now() - arrived;
    markFirstFrame("dataFrameAt");
    if (!intervalsPending) {
      markFirstFrame("intervalsFrameAt");
      // After that frame: the host's failure labels (seconds of CPU at 10,000 episodes) wait for it.
      requestAnimationFrame(() => setTimeout(() => send({ type: "compare/drawn" })));
    }
  } else if (m.type === "compare/failures") {
    failures = m.failures;
    render();
    const section = document.getElementById("failure-labels");
    if (section && setup?.origin === "prompt" && !failuresShown) {
      failuresShown = true;
      section.scrollIntoView({ block: "start" });
    }
  } else if (m.type === "retarget") {
    // Other runs: nothing of these runs' comparison stays on screen until theirs arrives.
    report = setup = pair = pairRequest = failures = undefined;
    failuresShown = false;
    intervalsPending = false;
    comparison = undefined;
    pinned.length = 0;
    clear(app);
    app.append(loadingLine());
  } else if (m.type === "compare/pair") {
    if (pairRequest?.questionId !== m.pair.questionId) return;
    pair = m.pair;
    render();
  }
});
