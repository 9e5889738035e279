/**
 * Compare webview: the "expected to differ" control (preset from how the comparison was opened),
 * fingerprint warnings, the system prompts' diff when they differ, the ablation table (signed Δ
 * with paired CIs in the CLI's own format; less-used columns behind a toggle so it fits 1280 px), a
 * forest plot of Δ F1 and Δ EM, the per-question flips with gold answers, a flip's pair view (both
 * episodes in this panel, aligned turn by turn) and pinned questions across every run.
 */
import "../shared/elements";
import type { AblationReport, QuestionRow } from "../../src/core/analysis/report-types";
import { ORIGIN_LABELS } from "../../src/core/analysis/compare-origin";
import { HOTPOTQA_INFO } from "../../src/core/envs/catalog";
import type { PromptDiff } from "../../src/core/analysis/compare-setup";
import { deltaCell, f3, formatP, intervalText } from "../../src/core/analysis/format";
import type { PairTurnSide, PairView } from "../../src/core/trace/pair-view";
import type { CompareSetup } from "../../src/extension/panels/protocol";
import { chartFigure, forestPlot } from "../shared/charts";
import { append, clear, fmt, h, usd } from "../shared/dom";
import { listen, loadingLine, markFirstFrame, send } from "../shared/host";

const app = document.getElementById("app")!;
let report: AblationReport | undefined;
let setup: CompareSetup | undefined;
let comparison = 0;
let moreColumns = false;
/** The flip whose pair view is open (or loading), and what arrived for it. */
let pairRequest: { questionId: string; runs: [number, number] } | undefined;
let pair: PairView | undefined;
const pinned: string[] = [];

function expectedControl(s: CompareSetup): HTMLElement {
  const checked = new Set(s.expect);
  const boxes = s.fields.map((f) => {
    const box = h("input", { type: "checkbox", value: f.field, class: "expect-field", id: `expect-${f.field}`, ...(checked.has(f.field) ? { checked: true } : {}) });
    box.addEventListener("change", () => {
      const chosen = Array.from(document.querySelectorAll<HTMLInputElement>("#expected .expect-field")).filter((b) => b.checked).map((b) => b.value);
      send({ type: "compare/setExpect", expect: chosen });
    });
    return h("label", { class: "expect-item", for: `expect-${f.field}` }, box, h("code", null, f.field), h("span", { class: "muted" }, ` (${f.runs.join(", ")})`));
  });
  return h(
    "fieldset",
    { id: "expected", class: "expected" },
    h("legend", null, "Expected to differ"),
    s.fields.length
      ? h("span", { class: "muted" }, `Opened to compare ${ORIGIN_LABELS[s.origin]}: ticked fields are the thing under test and raise no warning. `)
      : h("span", { class: "muted" }, "The runs' fingerprints are identical: nothing differs but the runs themselves."),
    ...boxes,
  );
}

/** The runs' environment, always: it is part of every fingerprint, though ablate never pairs two of them. */
function environmentLine(r: AblationReport): HTMLElement {
  // Reports written before reports named it are HotpotQA's (manifests without the field are).
  const env = r.environment ?? HOTPOTQA_INFO;
  return h("div", { class: "muted", id: "environment" }, "environment ", h("code", null, `${env.name} v${env.version}`), " (the same for every run: runs of different environments are never paired)");
}

function warnings(r: AblationReport): HTMLElement {
  // ablate's warnings already name every unexpected fingerprint difference, per run.
  const items = r.warnings;
  return h(
    "div",
    { class: items.length ? "warnings" : "warnings none", id: "warnings" },
    items.length ? h("strong", null, "Comparability warnings") : h("span", { class: "muted" }, "Fingerprints match, apart from the fields expected to differ."),
    items.length ? h("ul", null, ...items.map((w) => h("li", null, w))) : null,
  );
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
        ? h("pre", { class: "prompt-diff" }, ...d.lines.map((l) => h("div", { class: `diff-${l.op}` }, `${l.op === "added" ? "+ " : l.op === "removed" ? "- " : "  "}${l.text}`)))
        : h(
            "p",
            { class: "muted" },
            `The text of ${[d.baseline, d.other].filter((p) => p.text === null).map(promptText).join(" and ")} is not on disk any more ` +
              "(no file of that name holds that hash: the file was edited after the run), so only the hashes can be compared.",
          );
      return h("details", { open: true, class: "prompt-diff-block" }, h("summary", null, `System prompt: ${baseline} ${promptText(d.baseline)} → ${d.run} ${promptText(d.other)}`), body);
    }),
  );
}

/** A table cell; `more` cells are the less-used columns, shown with the toggle. */
function cell(text: string | number, more = false, cls = ""): HTMLElement {
  return h("td", { class: `${more ? "more " : ""}${cls}`.trim() || undefined }, text);
}

function table(r: AblationReport): HTMLElement {
  const head: [string, boolean][] = [
    ["run", false], ["n", false], ["F1 [95% CI]", false], ["EM [95% CI]", false], ["Δ F1 [paired CI]", false], ["p Holm", false], ["verdict F1", false],
    ["Δ EM [paired CI]", false], ["verdict EM", false], ["p F1", true], ["McNemar b/c", true], ["p EM (Holm)", true], ["MDE F1", true], ["searches/q", true], ["answered", true], ["$/q", true],
  ];
  const rows = r.runs.map((run, i) => {
    const c = i === 0 ? undefined : r.comparisons.find((x) => x.run === i);
    const verdictClass = (v: string | undefined) => (v ? `verdict verdict-${v.replace(/\s+/g, "-")}` : "");
    return h(
      "tr",
      { class: i === 0 ? "baseline" : "" },
      h("th", { scope: "row" }, run.name, i === 0 ? h("span", { class: "muted" }, " (baseline)") : null),
      cell(run.episodes - run.dropped),
      cell(`${f3(run.f1.mean)} ${intervalText(run.f1.ci)}`),
      cell(`${f3(run.em.mean)} ${intervalText(run.em.ci)}`),
      cell(c ? deltaCell(c.f1) : "–", false, "delta-f1"),
      cell(c ? formatP(c.f1.p_holm) : "–"),
      cell(c ? c.f1.verdict : "–", false, verdictClass(c?.f1.verdict)),
      cell(c ? deltaCell(c.em) : "–", false, "delta-em"),
      cell(c ? c.em.verdict : "–", false, verdictClass(c?.em.verdict)),
      cell(c ? formatP(c.f1.p) : "–", true),
      cell(c ? `${c.em.baseline_only}/${c.em.run_only}` : "–", true),
      cell(c ? `${formatP(c.em.p)} (${formatP(c.em.p_holm)})` : "–", true),
      cell(c ? f3(c.f1.mde) : "–", true),
      cell(fmt(run.searches_per_q, 2), true),
      cell(`${Math.round(run.answered * 100)}%`, true),
      cell(usd(run.usd_per_q), true),
    );
  });
  const t = h(
    "table",
    { class: `ablation${moreColumns ? " show-more" : ""}`, id: "ablation-table" },
    h("thead", null, h("tr", null, ...head.map(([x, more]) => h("th", { class: more ? "more" : undefined }, x)))),
    h("tbody", null, ...rows),
  );
  const toggle = h("vscode-button", { secondary: true, id: "more-columns" }, moreColumns ? "Fewer columns" : "More columns (p, b/c, MDE, searches, answered, $/q)");
  toggle.addEventListener("click", () => {
    moreColumns = !moreColumns;
    render();
  });
  const s = r.settings;
  const method = h(
    "p",
    { class: "muted", id: "method" },
    `Intervals: ${s.level * 100}% percentile bootstrap, ${s.resamples.toLocaleString("en-US")} resamples, seed ${s.seed}; Δ paired — the settings and digits of agent-lab ablate.`,
  );
  return h("div", { class: "table-block" }, h("div", { class: "table-scroll" }, t), h("div", { class: "table-tools" }, toggle), method);
}

function forest(r: AblationReport): HTMLElement {
  const f1 = r.comparisons.map((c) => ({ label: c.name, delta: c.f1.delta, lo: c.f1.ci.lo, hi: c.f1.ci.hi, verdict: c.f1.verdict }));
  const em = r.comparisons.map((c) => ({ label: c.name, delta: c.em.delta, lo: c.em.ci.lo, hi: c.em.ci.hi, verdict: c.em.verdict }));
  return h("div", { class: "charts", id: "forest" }, chartFigure("delta-f1", forestPlot(`Δ F1 vs ${r.runs[0].name}`, f1)), chartFigure("delta-em", forestPlot(`Δ EM vs ${r.runs[0].name}`, em)));
}

function openPair(q: QuestionRow, runIndex: number): void {
  pairRequest = { questionId: q.id, runs: [0, runIndex] };
  pair = undefined;
  send({ type: "compare/openPair", questionId: q.id, runs: [0, runIndex] });
  render();
  document.getElementById("pair")?.scrollIntoView?.({ block: "start" });
}

function flipItem(q: QuestionRow, runIndex: number): HTMLElement {
  const delta = q.f1[runIndex] - q.f1[0];
  const item = h(
    "li",
    { class: "flip", "data-id": q.id, tabindex: 0, title: "open both episodes, aligned turn by turn" },
    h("span", { class: "q" }, q.question),
    h("span", { class: "gold" }, ` gold: ${q.answers.join(" | ")}`),
    h("span", { class: "muted" }, ` · F1 ${fmt(q.f1[0], 2)} → ${fmt(q.f1[runIndex], 2)} (${delta >= 0 ? "+" : "−"}${Math.abs(delta).toFixed(2)}) · `),
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

function flips(r: AblationReport): HTMLElement {
  const c = r.comparisons[comparison];
  if (!c) return h("div", { class: "muted" }, "One run: nothing to compare.");
  const idx = r.comparisons.indexOf(c);
  const improved = r.questions.filter((q) => q.flips[idx]?.f1 === "improved");
  const regressed = r.questions.filter((q) => q.flips[idx]?.f1 === "regressed");
  const picker = h("select", { id: "comparison-picker" }, ...r.comparisons.map((x, i) => h("option", { value: i, ...(i === comparison ? { selected: true } : {}) }, `${x.name} vs ${r.runs[0].name}`)));
  picker.addEventListener("change", () => {
    comparison = Number(picker.value);
    render();
  });
  return h(
    "div",
    { class: "flips", id: "flips" },
    h("h3", null, "Per-question flips (F1) ", picker),
    h(
      "div",
      { class: "flip-columns" },
      h("div", null, h("h4", null, `Improved (${improved.length})`), h("ul", { id: "improved" }, ...improved.slice(0, 500).map((q) => flipItem(q, c.run)))),
      h("div", null, h("h4", null, `Regressed (${regressed.length})`), h("ul", { id: "regressed" }, ...regressed.slice(0, 500).map((q) => flipItem(q, c.run)))),
    ),
  );
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
    s.inserted && s.query === undefined ? h("details", { class: "inserted" }, h("summary", { class: "muted" }, "inserted by the harness"), h("pre", null, s.inserted)) : null,
    s.inserted && s.query !== undefined ? h("details", { class: "inserted" }, h("summary", { class: "muted" }, "results as the model saw them"), h("pre", null, s.inserted)) : null,
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
    return h("section", { id: "pair", class: "pair loading" }, h("p", { class: "muted" }, "Loading both episodes…"), close);
  }
  const p = pair;
  const req = pairRequest;
  const openTrace = (k: 0 | 1) => {
    const b = h("vscode-button", { secondary: true, class: "open-trace", "data-run": req.runs[k] }, `Full trace: ${p.sides[k].run}`);
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
      h("div", { class: "muted" }, `F1 ${fmt(s.f1, 2)} · EM ${s.em} · ${s.end} · ${s.searches} searches · ${s.generated} tokens generated`),
      s.decodeProblem ? h("div", { class: "muted" }, `Shown as token ids: ${s.decodeProblem}`) : null,
    );
  };
  return h(
    "section",
    { id: "pair", class: "pair" },
    h("div", { class: "pair-title" }, h("h3", null, p.question), close),
    h("div", { class: "gold" }, `gold: ${p.answers.join(" | ")}`),
    p.samePrompt ? null : h("div", { class: "muted" }, "The two episodes started from different prompts (see the prompt diff above)."),
    h(
      "div",
      { class: "pair-grid", id: "pair-grid" },
      h("div", { class: "turn-label" }),
      sideHead(0),
      sideHead(1),
      ...p.turns.flatMap((t) => [h("div", { class: "turn-label" }, `turn ${t.turn}`), turnCell(t.a, "side-a"), turnCell(t.b, "side-b")]),
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
        h("ol", null, ...r.runs.map((run, i) => h("li", null, h("strong", null, run.name), `: “${q.prediction[i]}” F1 ${fmt(q.f1[i], 2)} EM ${q.em[i]}`))),
      );
    }),
  );
}

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
    forest(report),
    pairSection(),
    pins(report),
    flips(report),
  ]);
}

listen((m) => {
  if (m.type === "compare/report") {
    report = m.report;
    setup = m.setup;
    render();
    markFirstFrame("dataFrameAt");
  } else if (m.type === "retarget") {
    // Other runs: nothing of these runs' comparison stays on screen until theirs arrives.
    report = setup = pair = pairRequest = undefined;
    comparison = 0;
    pinned.length = 0;
    clear(app);
    app.append(loadingLine());
  } else if (m.type === "compare/pair") {
    if (pairRequest?.questionId !== m.pair.questionId) return;
    pair = m.pair;
    render();
  }
});
