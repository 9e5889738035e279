/**
 * How fast the panels open in the real VS Code, from the command (a click in the Runs tree, the
 * Compare command, the dashboard command) to the first frame with data and to "interactive" (the
 * trace: the episode list and the episode's token stream both drawn), read from the webviews'
 * wall-clock frame times (webview/shared/host.ts `timings`), which the extension host shares.
 *
 * Each panel is timed twice: opened as a new webview ("new panel"; the trace's first one in the
 * window a few seconds after the Runs tree listed the runs, which starts the tokenizer's load) and
 * opened on other data while it is open ("reused": the data is posted into the same webview, no
 * webview start). The trace's whole list (its rows after the first ones) is timed too. And VS
 * Code's own floor, the reference: a webview made the same way whose page is one inline script.
 *
 * Runs on the fixture's 200-episode eval runs; `bench/panels/run.ts --vscode` runs it on its own
 * workspace (200 and 10,000 episodes) and reads the table written to AGENT_LAB_IT_PANEL_TIMINGS.
 * The limits are 10x the idle-machine targets scaled by load (test/helpers/load-scaled.ts), not
 * the targets: the numbers to quote come from the bench.
 */
import * as assert from "node:assert/strict";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import * as vscode from "vscode";
import { PROBE_PANEL_COMMAND, REFERENCE_PANEL_COMMAND } from "../../src/extension/webview/protocol";
import type { ReferenceTimes } from "../../src/extension/webview/reference-panel";
import type { Lab } from "../../src/extension/register-commands";
import { runFile } from "../../src/core/base/runs/run-folder";
import { activeExports, compareFromPalette, labelOf, treeRows, waitFor } from "./helpers";
import { speedGuardMs, WEBVIEW_START_FACTOR } from "../helpers/load-scaled";

interface Answer {
  timings: Record<string, number>;
  host?: Record<string, number>;
}

/** One measured opening, for the table. */
interface Timing {
  panel: string;
  run: string;
  episodes: number;
  firstFrameMs: number;
  interactiveMs: number;
  /** The webview's script start after the command (its boot, which the host cannot shorten). */
  scriptMs: number;
  /** The trace: the frame with every row of the list (its first rows come first). */
  wholeListMs?: number;
  /** When the page's @vscode-elements controls were defined (they load after the first frame); -1: before the command (a reused panel). */
  controlsMs?: number;
  host: Record<string, number>;
}

const TARGETS_MS = { trace: 300, trace10k: 500, compare: 500, dashboard: 500 };
/**
 * Not asserted: VS Code's own webview start takes most of these (bench/panels reports the times
 * against them). A test fails only at many times the target: a hang or a regression.
 */
const measured: Timing[] = [];
/** How long the first trace of the window is clicked after the Runs tree listed the runs (a reader looks before clicking). */
const FIRST_CLICK_AFTER_MS = 3000;
/** How long after closing a panel the Compare "new panel (runs compared before)" is opened (see there). */
const CLOSED_SETTLE_MS = 3000;
/** Reference webviews opened (the median goes in the table). */
const REFERENCE_OPENS = 3;
/**
 * Set by bench/panels when this file's reference test runs alone in a new window: its first open
 * is then the window's first webview, the floor under the first trace of a window.
 */
const REFERENCE_FIRST_IN_WINDOW = process.env.AGENT_LAB_IT_REFERENCE_FIRST === "1";

const frame = (t: Record<string, number>, k: string) => (Number.isFinite(t[k]) ? t[k] : undefined);

/** Probes the newest panel of `kind` until `done` says its frames are in. */
async function frames(kind: string, done: (a: Answer) => boolean): Promise<Answer> {
  return waitFor(
    `the ${kind} panel's first frames`,
    async () => {
      try {
        const a = await vscode.commands.executeCommand<Answer>(PROBE_PANEL_COMMAND, kind, ["body"]);
        return done(a) ? a : undefined;
      } catch {
        return undefined; // not open or not ready yet
      }
    },
    60_000,
    20,
  );
}

function episodeCount(dir: string): number {
  const rows = readFileSync(join(dir, "episodes.jsonl"), "utf8");
  let n = 0;
  for (let i = rows.indexOf("\n"); i >= 0; i = rows.indexOf("\n", i + 1)) n++;
  return n;
}

/** When the newest `kind` panel's controls were defined after `t0`, or -1 when before it (a reused page). */
async function controlsAfter(kind: string, t0: number, a: Answer): Promise<number> {
  const defined = frame(a.timings, "elementsAt");
  if (defined !== undefined && defined < t0) return -1;
  return (await frames(kind, (x) => frame(x.timings, "elementsAt") !== undefined)).timings.elementsAt - t0;
}

/** The frames of an open at `t0` (frame marks from an earlier open are older than t0). */
const since = (t0: number) => (t: Record<string, number>, k: string) => {
  const at = frame(t, k);
  return at !== undefined && at >= t0 ? at : undefined;
};

describe("panel speed (real VS Code)", function () {
  this.timeout(600_000);
  let lab: Lab;
  const runs = () =>
    lab.runs
      .currentRows()
      .filter((r) => r.kind === "eval" && /^heuristic(-\d+)?$/.test(r.name))
      .sort((a, b) => a.name.length - b.name.length);
  before(async () => {
    lab = await activeExports<Lab>();
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });
  afterEach(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });
  after(() => {
    const out = process.env.AGENT_LAB_IT_PANEL_TIMINGS;
    if (out) writeFileSync(out, JSON.stringify(measured, null, 2));
  });

  /** Regression guard: 10x the target, scaled by load (the first open in a window also loads the tokenizer: not checked). */
  function guard(t: Timing, target: number): void {
    assert.ok(
      t.interactiveMs < speedGuardMs(target, WEBVIEW_START_FACTOR),
      `${t.panel} of ${t.run} interactive after ${t.interactiveMs} ms (target ${target} ms)`,
    );
  }

  it("trace: a click in the Runs tree → list and episode drawn, in a new panel and in the open one", async () => {
    const rows = runs();
    assert.ok(rows.length > 0, "no heuristic eval run in the workspace");
    const small = rows[0];
    const large = rows[rows.length - 1];
    const clickEpisode = async (row: (typeof rows)[number], nth: number) => {
      const node = (await treeRows(lab.runs)).find((r) => labelOf(r.item) === row.name);
      assert.ok(node, `${row.name} in the Runs tree`);
      const group = (await treeRows(lab.runs, node.node))[0];
      const episodes = await treeRows(lab.runs, group.node);
      const cmd = episodes[Math.min(nth, episodes.length - 1)].item.command!;
      const t0 = Date.now();
      await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
      return t0;
    };
    const open = async (row: (typeof rows)[number], how: string, nth: number, check: boolean) => {
      const t0 = await clickEpisode(row, nth);
      const at = since(t0);
      const a = await frames(
        "trace",
        (x) => at(x.timings, "listFrameAt") !== undefined && at(x.timings, "episodeFrameAt") !== undefined,
      );
      const whole =
        (await frames("trace", (x) => at(x.timings, "listWholeFrameAt") !== undefined)).timings.listWholeFrameAt - t0;
      const list = a.timings.listFrameAt - t0;
      const ep = a.timings.episodeFrameAt - t0;
      const preview = at(a.timings, "previewFrameAt");
      const episodes = episodeCount(row.dir);
      const t: Timing = {
        panel: `trace, ${how}`,
        run: row.name,
        episodes,
        firstFrameMs: Math.min(list, ep, preview === undefined ? Infinity : preview - t0),
        interactiveMs: Math.max(list, ep),
        scriptMs: a.timings.scriptAt - t0,
        wholeListMs: whole,
        controlsMs: await controlsAfter("trace", t0, a),
        host: a.host ?? {},
      };
      measured.push(t);
      console.log(
        `      trace ${row.name} (${episodes} episodes, ${how}): first frame ${t.firstFrameMs} ms, interactive ${t.interactiveMs} ms, whole list ${whole} ms (webview script at ${t.scriptMs} ms; host: ${JSON.stringify(Object.fromEntries(Object.entries(t.host).map(([k, v]) => [k, Math.round(v)])))})`,
      );
      if (check) guard(t, episodes > 1000 ? TARGETS_MS.trace10k : TARGETS_MS.trace);
    };
    // Let a run's background pass finish and write its text cache (later opens read it).
    const cached = (row: (typeof rows)[number]) =>
      waitFor(`${row.name}'s text cache`, () => existsSync(runFile(row.dir, "textIndex")) || undefined, 180_000, 200);

    await treeRows(lab.runs); // the Runs tree lists the runs: the tokenizer's load starts
    await new Promise((r) => setTimeout(r, FIRST_CLICK_AFTER_MS));
    await open(small, `new panel, first in the window (${FIRST_CLICK_AFTER_MS / 1000} s after the tree)`, 0, false);
    await cached(small);
    if (large !== small) {
      await open(large, "reused (another run)", 0, true);
      await cached(large);
      await vscode.commands.executeCommand("workbench.action.closeAllEditors");
      await open(large, "new panel", 1, true);
    } else {
      // Reuse needs the panel on another run: the closed-book run of the same questions (not timed).
      const other = lab.runs
        .currentRows()
        .find((r) => r.kind === "eval" && r.name === small.name.replace(/^heuristic/, "closed-book"));
      assert.ok(other, `a closed-book run beside ${small.name}`);
      await open(other, "reused (another run, not in the table)", 0, false);
      measured.pop();
    }
    await open(small, "reused (another run)", 1, true);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await open(small, "new panel", 2, true);
  });

  it("compare: the command → the table drawn, in a new panel and in the open one", async () => {
    for (const row of runs()) {
      const other = row.name.replace(/^heuristic/, "closed-book");
      if (!lab.runs.currentRows().some((r) => r.name === other)) continue;
      // The third and fourth opens are new panels on runs compared before (the view made before is
      // posted again: compare-made.ts): the third right after closing the open one, the fourth once
      // VS Code settled after closing it (a new webview right after a closed 10,000-question Compare
      // started its script 1.8-2.9 s after the command while the extension host was idle).
      for (const [how, baseline, second, settleMs] of [
        ["new panel", row.name, other, 0],
        ["reused (other baseline)", other, row.name, 0],
        ["new panel (runs compared before), right after closing one", row.name, other, 0],
        ["new panel (runs compared before)", row.name, other, CLOSED_SETTLE_MS],
      ] as const) {
        if (how.startsWith("new panel (")) {
          await vscode.commands.executeCommand("workbench.action.closeAllEditors");
          await new Promise((r) => setTimeout(r, settleMs));
        }
        // The extension host's side of the wait: its longest hold of its thread and its CPU (worker threads too).
        const hold = monitorEventLoopDelay({ resolution: 5 });
        hold.enable();
        const cpu0 = process.cpuUsage();
        const t0 = Date.now();
        await compareFromPalette(baseline, second);
        const at = since(t0);
        // First frame: the table drawn (before its intervals for runs not compared before); interactive: with its intervals.
        const a = await frames("compare", (x) => at(x.timings, "intervalsFrameAt") !== undefined);
        const t: Timing = {
          panel: `compare, ${how}`,
          run: `${baseline} vs ${second}`,
          episodes: episodeCount(row.dir),
          firstFrameMs: a.timings.dataFrameAt - t0,
          interactiveMs: a.timings.intervalsFrameAt - t0,
          scriptMs: a.timings.scriptAt - t0,
          controlsMs: await controlsAfter("compare", t0, a),
          host: a.host ?? {},
        };
        hold.disable();
        const cpu = process.cpuUsage(cpu0);
        const hostSide = `the extension host's longest hold ${Math.round(hold.max / 1e6)} ms, its CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms`;
        measured.push(t);
        console.log(
          `      compare ${t.run} (${how}): table drawn ${t.firstFrameMs} ms, its intervals ${t.interactiveMs} ms after the command (webview script at ${t.scriptMs} ms; the report posted at ${(a.host?.postedAt ?? NaN) - t0} ms, reached the page at ${a.timings.reportAt - t0} ms, laid out in ${Math.round(a.timings.renderMs)} ms; ${hostSide}; host: ${JSON.stringify(Object.fromEntries(Object.entries(t.host).map(([k, v]) => [k, Math.round(v)])))})`,
        );
        if (t.episodes <= 1000) guard(t, TARGETS_MS.compare);
        // Large runs compared for the first time: the table comes before (or with) the intervals and tests not yet drawn.
        else if (how === "new panel")
          assert.ok(t.firstFrameMs <= t.interactiveMs, `the table before its intervals: ${JSON.stringify(t)}`);
      }
      await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    }
  });

  it("reference: VS Code's own webview start, a page of one inline script made as the panels are", async () => {
    const runs: Timing[] = [];
    for (let i = 0; i < REFERENCE_OPENS; i++) {
      await vscode.commands.executeCommand("workbench.action.closeAllEditors");
      const t0 = Date.now();
      const r = await vscode.commands.executeCommand<ReferenceTimes>(REFERENCE_PANEL_COMMAND);
      runs.push({
        panel: "reference: VS Code's webview alone (inline script, no bundle)",
        run: "",
        episodes: 0,
        firstFrameMs: r.frameAt - t0,
        interactiveMs: r.frameAt - t0,
        scriptMs: r.scriptAt - t0,
        host: {},
      });
    }
    const byFrame = [...runs].sort((a, b) => a.firstFrameMs - b.firstFrameMs);
    const median = byFrame[Math.floor(byFrame.length / 2)];
    measured.push({ ...median, run: `median of ${REFERENCE_OPENS}: ${runs.map((r) => r.firstFrameMs).join(" / ")}` });
    if (REFERENCE_FIRST_IN_WINDOW)
      measured.push({ ...runs[0], panel: "reference: the window's first webview (inline script, no bundle)" });
    console.log(
      `      reference webview: script start ${runs.map((r) => r.scriptMs).join(" / ")} ms, first frame ${runs.map((r) => r.firstFrameMs).join(" / ")} ms after the command`,
    );
    assert.ok(
      median.firstFrameMs < speedGuardMs(TARGETS_MS.dashboard, WEBVIEW_START_FACTOR),
      `the reference webview drew after ${median.firstFrameMs} ms`,
    );
  });

  it("dashboard: the command → the charts drawn, in a new panel and in the open one", async () => {
    const training = lab.runs
      .currentRows()
      .find((r) => r.kind === "training" && existsSync(join(r.dir, "checkpoints.jsonl")));
    assert.ok(training, "a training run in the workspace");
    // A second training run to reuse the panel for: a copy of the first.
    const copy = join(dirname(training.dir), `${training.name}-speed-copy`);
    rmSync(copy, { recursive: true, force: true });
    cpSync(training.dir, copy, { recursive: true });
    try {
      for (const [how, dir] of [
        ["new panel", training.dir],
        ["reused (another run)", copy],
      ]) {
        const t0 = Date.now();
        await vscode.commands.executeCommand("agentLab.openDashboard", dir);
        const at = since(t0);
        const a = await frames("dashboard", (x) => at(x.timings, "dataFrameAt") !== undefined);
        const t: Timing = {
          panel: `dashboard, ${how}`,
          run: basename(dir),
          episodes: 0,
          firstFrameMs: a.timings.dataFrameAt - t0,
          interactiveMs: a.timings.dataFrameAt - t0,
          scriptMs: a.timings.scriptAt - t0,
          controlsMs: await controlsAfter("dashboard", t0, a),
          host: a.host ?? {},
        };
        measured.push(t);
        console.log(
          `      dashboard ${t.run} (${how}): charts drawn ${t.firstFrameMs} ms after the command (webview script at ${t.scriptMs} ms)`,
        );
        guard(t, TARGETS_MS.dashboard);
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
