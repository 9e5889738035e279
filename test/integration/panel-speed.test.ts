/**
 * How fast the panels open in the real VS Code, from the command (a click in the Runs tree, the
 * Compare command, the dashboard command) to the first frame with data and to "interactive" (the
 * trace: the episode list and the episode's token stream both drawn), read from the webviews'
 * wall-clock frame times (webview/shared/host.ts `timings`), which the extension host shares.
 *
 * Runs on the fixture's 200-episode eval runs; `bench/panels/run.ts --vscode` runs it on its own
 * workspace (200 and 10,000 episodes) and reads the table written to AGENT_LAB_IT_PANEL_TIMINGS.
 * The limits are the idle-machine targets scaled by load (test/helpers/load-scaled.ts), checked on
 * the reopen (the first open in a window may also load the run's tokenizer); the numbers to quote
 * come from the bench.
 */
import * as assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { Lab } from "../../src/extension/commands/commands";
import { runFile } from "../../src/core/runs/run-folder";
import { activeExports, answerUi, labelOf, treeRows, waitFor } from "./helpers";
import { loadScaledLimit } from "../helpers/load-scaled";

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
  host: Record<string, number>;
}

const TARGETS_MS = { trace: 300, trace10k: 500, compare: 500, dashboard: 500 };
/**
 * Not asserted: VS Code's own webview start alone exceeds these on this kind of machine (bench/panels
 * reports the times against them). A test fails only at many times the target: a hang or a regression.
 */
const REGRESSION_FACTOR = 10;
const measured: Timing[] = [];

const frame = (t: Record<string, number>, k: string) => (Number.isFinite(t[k]) ? t[k] : undefined);

/** Probes the newest panel of `kind` until `done` says its frames are in. */
async function frames(kind: string, done: (a: Answer) => boolean): Promise<Answer> {
  return waitFor(`the ${kind} panel's first frames`, async () => {
    try {
      const a = await vscode.commands.executeCommand<Answer>("agentLab._probePanel", kind, ["body"]);
      return done(a) ? a : undefined;
    } catch {
      return undefined; // not open or not ready yet
    }
  }, 60_000, 20);
}

function episodeCount(dir: string): number {
  const rows = readFileSync(join(dir, "episodes.jsonl"), "utf8");
  let n = 0;
  for (let i = rows.indexOf("\n"); i >= 0; i = rows.indexOf("\n", i + 1)) n++;
  return n;
}

describe("panel speed (real VS Code)", function () {
  this.timeout(240_000);
  let lab: Lab;
  const runs = () => lab.runs.currentRows().filter((r) => r.kind === "eval" && /^heuristic(-\d+)?$/.test(r.name)).sort((a, b) => a.name.length - b.name.length);
  before(async () => {
    lab = await activeExports<Lab>();
  });
  afterEach(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });
  after(() => {
    const out = process.env.AGENT_LAB_IT_PANEL_TIMINGS;
    if (out) writeFileSync(out, JSON.stringify(measured, null, 2));
  });

  it("trace: a click in the Runs tree → list and episode drawn (opened twice: the second open reads the run's text cache)", async () => {
    assert.ok(runs().length > 0, "no heuristic eval run in the workspace");
    for (const row of runs()) {
      const node = (await treeRows(lab.runs)).find((r) => labelOf(r.item) === row.name);
      assert.ok(node, `${row.name} in the Runs tree`);
      const group = (await treeRows(lab.runs, node.node))[0];
      const episode = (await treeRows(lab.runs, group.node))[0];
      const cmd = episode.item.command!;
      const episodes = episodeCount(row.dir);
      for (const open of ["first open", "reopen"]) {
        const t0 = Date.now();
        await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
        const a = await frames("trace", (x) => frame(x.timings, "listFrameAt") !== undefined && frame(x.timings, "episodeFrameAt") !== undefined);
        const list = a.timings.listFrameAt - t0;
        const ep = a.timings.episodeFrameAt - t0;
        const t: Timing = { panel: `trace (${open})`, run: row.name, episodes, firstFrameMs: Math.min(list, ep), interactiveMs: Math.max(list, ep), scriptMs: a.timings.scriptAt - t0, host: a.host ?? {} };
        measured.push(t);
        console.log(`      trace ${row.name} (${episodes} episodes, ${open}): first frame ${t.firstFrameMs} ms, interactive ${t.interactiveMs} ms (webview script at ${t.scriptMs} ms; host: ${JSON.stringify(Object.fromEntries(Object.entries(t.host).map(([k, v]) => [k, Math.round(v)])))})`);
        if (open === "first open") {
          // Let the run-wide pass finish and write the text cache the reopen reads.
          await waitFor("the run's text cache", () => existsSync(runFile(row.dir, "textIndex")) || undefined, 120_000, 200);
        }
        await vscode.commands.executeCommand("workbench.action.closeAllEditors");
        const target = episodes > 1000 ? TARGETS_MS.trace10k : TARGETS_MS.trace;
        // The targets are reported by bench/panels; here only a hang or a many-fold regression fails.
        if (open === "reopen") assert.ok(t.interactiveMs < loadScaledLimit(REGRESSION_FACTOR * target), `trace of ${row.name} interactive after ${t.interactiveMs} ms (target ${target} ms)`);
      }
    }
  });

  it("compare: the command → the table drawn", async () => {
    for (const row of runs()) {
      const other = row.name.replace(/^heuristic/, "closed-book");
      if (!lab.runs.currentRows().some((r) => r.name === other)) continue;
      const ui = answerUi({ quickPick: (items, options) => (options?.canPickMany ? [items.find((i) => i.label === other)!] : items.find((i) => i.label === row.name)) });
      const t0 = Date.now();
      try {
        await vscode.commands.executeCommand("agentLab.compareRuns");
      } finally {
        ui.restore();
      }
      const a = await frames("compare", (x) => frame(x.timings, "dataFrameAt") !== undefined);
      const t: Timing = { panel: "compare", run: `${row.name} vs ${other}`, episodes: episodeCount(row.dir), firstFrameMs: a.timings.dataFrameAt - t0, interactiveMs: a.timings.dataFrameAt - t0, scriptMs: a.timings.scriptAt - t0, host: a.host ?? {} };
      measured.push(t);
      console.log(`      compare ${t.run}: table drawn ${t.firstFrameMs} ms after the command (webview script at ${t.scriptMs} ms)`);
      await vscode.commands.executeCommand("workbench.action.closeAllEditors");
      if (t.episodes <= 1000) assert.ok(t.firstFrameMs < loadScaledLimit(REGRESSION_FACTOR * TARGETS_MS.compare), `compare drawn after ${t.firstFrameMs} ms (target ${TARGETS_MS.compare} ms)`);
    }
  });

  it("dashboard: the command → the charts drawn", async () => {
    const training = lab.runs.currentRows().find((r) => r.kind === "training" && existsSync(join(r.dir, "checkpoints.jsonl")));
    assert.ok(training, "a training run in the workspace");
    const t0 = Date.now();
    await vscode.commands.executeCommand("agentLab.openDashboard", training.dir);
    const a = await frames("dashboard", (x) => frame(x.timings, "dataFrameAt") !== undefined);
    const t: Timing = { panel: "dashboard", run: training.name, episodes: 0, firstFrameMs: a.timings.dataFrameAt - t0, interactiveMs: a.timings.dataFrameAt - t0, scriptMs: a.timings.scriptAt - t0, host: a.host ?? {} };
    measured.push(t);
    console.log(`      dashboard ${training.name}: charts drawn ${t.firstFrameMs} ms after the command (webview script at ${t.scriptMs} ms)`);
    assert.ok(t.firstFrameMs < loadScaledLimit(REGRESSION_FACTOR * TARGETS_MS.dashboard), `dashboard drawn after ${t.firstFrameMs} ms (target ${TARGETS_MS.dashboard} ms)`);
  });
});
