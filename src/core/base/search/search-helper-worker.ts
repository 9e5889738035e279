/**
 * The search helper thread (search-helper.ts): opens the index it is given, warms it, says it is
 * ready, then searches the window ranges posted to it in shared memory until told to stop.
 * Bundled as its own file (dist/search-helper-worker.js) next to the CLI; under tsx it runs as .ts.
 */
import { workerData } from "node:worker_threads";
import { openIndex } from "./bm25-index";
import { Ctl, HELPER_CACHE_BYTES, helperMemory, State, type HelperData } from "./search-helper";

async function main(): Promise<void> {
  const { indexDir, shared } = workerData as HelperData;
  const { control, rows, docs, scores } = helperMemory(shared);
  // A small page cache: the lists, window files included, are mapped (shared with the caller's
  // mappings through the OS's file cache), and the helper never reads the texts or document ids
  // the caller's cache holds, so it owns a fraction of the caller's memory.
  const index = openIndex(indexDir, { helper: false, cacheBytes: HELPER_CACHE_BYTES });
  await index.filled;
  Atomics.store(control, Ctl.Ready, 1);
  for (;;) {
    const state = Atomics.load(control, Ctl.State);
    if (state === State.Stop) break;
    if (state !== State.Posted) {
      Atomics.wait(control, Ctl.State, state);
      continue;
    }
    if (Atomics.compareExchange(control, Ctl.State, State.Posted, State.Taken) !== State.Posted) continue;
    try {
      const top = index.topRows(
        Array.from(rows.subarray(0, control[Ctl.Rows])),
        control[Ctl.K],
        control[Ctl.From],
        control[Ctl.To],
      );
      for (let i = 0; i < top.length; i++) {
        docs[i] = top[i].doc;
        scores[i] = top[i].score;
      }
      control[Ctl.Count] = top.length;
    } catch {
      control[Ctl.Count] = -1; // the caller searches this half itself
    }
    Atomics.store(control, Ctl.State, State.Done);
    Atomics.notify(control, Ctl.State);
  }
  index.close();
}

void main();
