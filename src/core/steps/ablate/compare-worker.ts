/**
 * Worker-thread entry of the Compare panel's report (bundled as dist/compare-worker.js next to the
 * extension; under tsx it runs as .ts): reads the runs and runs ablate's resamples here, off the
 * extension host's thread, which at 10,000 episodes they held for seconds; the table without its
 * intervals is sent before them (CompareProgress). What it read and
 * resampled goes into the runs' Compare caches after the reply (compare-cache.ts): the next
 * Compare of these runs, in this worker or on the host, reads those instead.
 */
import { parentPort } from "node:worker_threads";
import { loadCompareRuns } from "./compare-cache";
import { compareView } from "./compare-setup";
import { shownView } from "./compare-shown";
import { NOT_RESAMPLED } from "../../base/stats/resample-memo";
import type { CompareProgress, CompareReply, CompareRequest } from "./compare-off-thread";

parentPort!.on("message", (req: CompareRequest) => {
  let reply: CompareReply;
  let save = () => {};
  try {
    const runs = loadCompareRuns(req.runDirs);
    save = runs.save;
    // Runs not compared before are resampled afresh (10^8 draws at 10,000 questions, a second or
    // more): their table without the intervals goes first, made without a draw.
    if (!runs.fromCaches) {
      const table = shownView(compareView(runs.inputs, req.origin, req.expect, req.searchDirs, NOT_RESAMPLED));
      parentPort!.postMessage({ id: req.id, progress: table } satisfies CompareProgress);
    }
    reply = {
      id: req.id,
      ok: shownView(compareView(runs.inputs, req.origin, req.expect, req.searchDirs, runs.resampling)),
    };
  } catch (e) {
    reply = { id: req.id, failed: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(reply);
  save();
});
