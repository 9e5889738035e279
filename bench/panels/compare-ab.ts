/**
 * The first Compare's host-side work on the bench's 10,000-episode runs, this tree against another
 * checkout's (a copy of another revision, its node_modules linked), in interleaved pairs in one
 * process: the runs read for ablate; where the tree's eval keeps each run's Compare cache at its end,
 * that (in its own process, as the eval's job); the table before its intervals (runs read, the
 * report made with what is remembered: nothing in a tree without those caches), then the report with
 * the draws not remembered (10^8 without caches, the pair's sign-flip test with them). Wall and CPU time (process.cpuUsage, which
 * the machine's load does not inflate as it does wall time). Run bench/panels/run.ts once first
 * (it makes the workspace).
 *
 *   git archive REV | tar -x -C DIR && ln -s "$PWD/node_modules" DIR/node_modules
 *   npx tsx bench/panels/compare-ab.ts --before DIR [--pairs 3] [--large 10000]
 */
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { runFile } from "../../src/core/base/runs/run-folder";
import type { Resampling } from "../../src/core/base/stats/resample-memo";
import { keepForCompareElsewhere, panelWorkspace, ROOT } from "./workspace";

const { values } = parseArgs({
  options: {
    before: { type: "string" },
    pairs: { type: "string", default: "3" },
    large: { type: "string", default: "10000" },
  },
});
if (!values.before) throw new Error("give --before DIR: a checkout of the revision to compare against");

/** The modules measured, as this tree types them (the other checkout's have the same names and shapes). */
interface Modules {
  ablate: typeof import("../../src/core/steps/ablate/ablate");
  cache: typeof import("../../src/core/steps/ablate/compare-cache");
  setup: typeof import("../../src/core/steps/ablate/compare-setup");
  shown: typeof import("../../src/core/steps/ablate/compare-shown");
  memo: typeof import("../../src/core/base/stats/resample-memo");
  significance: typeof import("../../src/core/base/stats/significance");
}

function modules(root: string): Modules {
  const load = createRequire(__filename);
  const at = (path: string): unknown => load(join(root, "src", path));
  return {
    ablate: at("core/steps/ablate/ablate") as Modules["ablate"],
    cache: at("core/steps/ablate/compare-cache") as Modules["cache"],
    setup: at("core/steps/ablate/compare-setup") as Modules["setup"],
    shown: at("core/steps/ablate/compare-shown") as Modules["shown"],
    memo: at("core/base/stats/resample-memo") as Modules["memo"],
    significance: at("core/base/stats/significance") as Modules["significance"],
  };
}

function measure(f: () => void): { wall: number; cpu: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  f();
  const c = process.cpuUsage(c0);
  return { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
}

/** The table's resampling: what the caches remember (this tree), or none (a tree from before rememberedOnly). */
function tableResampling(m: Modules, runs: ReturnType<Modules["cache"]["loadCompareRuns"]>): Resampling {
  if ("rememberedOnly" in runs.resampling) return runs.resampling.rememberedOnly();
  return (m.memo as unknown as { NOT_RESAMPLED: Resampling }).NOT_RESAMPLED;
}

async function main(): Promise<void> {
  const large = Number(values.large);
  const ws = await panelWorkspace(large, (line) => console.log(line));
  const pair = [ws.runs[large].search, ws.runs[large].closedBook];
  const ROOT_OF = { before: resolve(values.before!), after: ROOT };
  const trees = { before: modules(ROOT_OF.before), after: modules(ROOT) };
  const rows = new Map<string, Record<"before" | "after", { wall: number; cpu: number }[]>>();
  const add = (what: string, tree: "before" | "after", m: { wall: number; cpu: number }) => {
    if (!rows.has(what)) rows.set(what, { before: [], after: [] });
    rows.get(what)![tree].push(m);
  };
  // The bench's runs are HotpotQA-shaped: F1 is their primary metric.
  const [base, run] = trees.after.ablate.loadAblationInputs(pair).map((r) => r.episodes.map((e) => e.metrics.f1 ?? 0));
  const f1Differences = Float64Array.from(run, (v, q) => v - base[q]);
  for (let k = 0; k < Number(values.pairs); k++)
    for (const tree of k % 2 ? (["after", "before"] as const) : (["before", "after"] as const)) {
      const m = trees[tree];
      for (const d of pair) rmSync(runFile(d, "compareCache"), { force: true });
      add(
        "the pair's sign-flip test alone (F1 differences, 10,000 resamples)",
        tree,
        measure(() => void m.significance.signFlipTest(f1Differences, { resamples: 10_000, seed: 0, stream: 2 })),
      );
      add(
        "both runs read for ablate",
        tree,
        measure(() => void m.ablate.loadAblationInputs(pair)),
      );
      // A tree whose eval keeps each run's Compare cache at its end: kept here in another process, as
      // the eval's job is (this process must read the caches from disk, as the extension host does).
      if ("keepForCompare" in m.cache)
        add(
          "at the eval's end: the run's Compare cache (each run, own process)",
          tree,
          (() => {
            const each = keepForCompareElsewhere(pair, ROOT_OF[tree]);
            return { wall: Math.max(...each.map((t) => t.wall)), cpu: Math.max(...each.map((t) => t.cpu)) };
          })(),
        );
      let runs: ReturnType<Modules["cache"]["loadCompareRuns"]> | undefined;
      add(
        "first Compare: runs read + the table (what is remembered)",
        tree,
        measure(() => {
          runs = m.cache.loadCompareRuns(pair);
          m.shown.shownView(m.setup.compareView(runs.inputs, "runs", undefined, [], tableResampling(m, runs)));
        }),
      );
      add(
        "first Compare: then the report (the draws not remembered)",
        tree,
        measure(
          () => void m.shown.shownView(m.setup.compareView(runs!.inputs, "runs", undefined, [], runs!.resampling)),
        ),
      );
    }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const cell = (ms: { wall: number; cpu: number }[]) =>
    ms.length === 0
      ? "—"
      : `${median(ms.map((m) => m.wall)).toFixed(0)} / ${median(ms.map((m) => m.cpu)).toFixed(0)} (CPU ${ms.map((m) => m.cpu.toFixed(0)).join(", ")})`;
  console.log(
    `\n${values.pairs} interleaved pairs, ${large} episodes, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" / ")}; medians, wall / CPU ms\n`,
  );
  for (const [what, by] of rows) console.log(`${what.padEnd(48)} before ${cell(by.before)}   after ${cell(by.after)}`);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
