/**
 * The Compare views this process made last, each kept with what it was made from: the request
 * (runs, origin, expected differences) and every run's manifest.json and episodes.jsonl as they were
 * (size and mtime, taken before reading). A new Compare panel on runs compared before (closed and
 * opened again) posts the kept view instead of reading both runs' Compare caches and making the
 * report again: at 10,000 episodes that held the extension host's thread for about 300 ms while VS
 * Code created the page, whose start waits for that thread.
 *
 * A kept view is the one that would be made: the report is a function of those two files per run
 * and the request (ablate's resampling is seeded). Only the prompt diffs read other files (a prompt
 * in the workspace may have been edited since), so they are made again, from the runs' manifests, on
 * every use.
 */
import { fileStamp } from "../../base/util/file-stamp";
import { readRunHead } from "../../base/runs/run-files";
import { runFile } from "../../base/runs/run-folder";
import { promptDiffs, type CompareOrigin } from "./compare-setup";
import type { CompareView } from "./compare-off-thread";

/** Views kept: a few panels' worth (each is the shown report: at most a thousand question rows per comparison). */
const KEEP_VIEWS = 4;

export interface CompareWhat {
  runDirs: readonly string[];
  origin: CompareOrigin;
  expect: readonly string[] | undefined;
}

export class MadeViews {
  private readonly views = new Map<string, CompareView>();

  /** What a view of `what` is made from, now: take it before reading the runs (a run written meanwhile makes it stale, never wrong). */
  key(what: CompareWhat): string {
    const files = what.runDirs.map((d) => [fileStamp(runFile(d, "manifest")), fileStamp(runFile(d, "episodes"))]);
    return JSON.stringify([what.runDirs, what.origin, what.expect ?? null, files]);
  }

  keep(key: string, view: CompareView): void {
    this.views.delete(key);
    this.views.set(key, view);
    while (this.views.size > KEEP_VIEWS) this.views.delete(this.views.keys().next().value!);
  }

  /** The view kept under `key` with its prompt diffs made again (searched for in `searchDirs`), or undefined. */
  get(key: string, runDirs: readonly string[], searchDirs: readonly string[]): CompareView | undefined {
    const view = this.views.get(key);
    if (!view) return undefined;
    this.keep(key, view);
    const inputs = runDirs.map((dir, i) => ({
      dir,
      name: view.report.runs[i].name,
      manifest: readRunHead(dir).manifest,
    }));
    return { report: view.report, setup: { ...view.setup, prompts: promptDiffs(inputs, searchDirs) } };
  }
}

/** The process's views: every Compare panel's. */
export const madeViews = new MadeViews();
