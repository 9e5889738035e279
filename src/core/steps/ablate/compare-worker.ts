/**
 * Worker-thread entry of the Compare panel's report (bundled as dist/compare-worker.js next to the
 * extension; under tsx it runs as .ts): reads the runs and runs ablate's resamples here, off the
 * extension host's thread, which at 10,000 episodes they held for seconds; the table with what the
 * runs' caches remember is sent before the rest is drawn (CompareProgress). What it read and
 * resampled goes into the runs' Compare caches after the reply (compare-cache.ts): the next
 * Compare of these runs, in this worker or on the host, reads those instead. It also draws what a
 * table made from caches missed (DrawRequest), and keeps the caches a runs folder's finished eval
 * runs miss (KeepRequest: the window does that a while after it opens).
 */
import { parentPort } from "node:worker_threads";
import { keepMissingForCompare, loadCompareRuns } from "./compare-cache";
import { compareView } from "./compare-setup";
import { shownView } from "./compare-shown";
import { drawMissed } from "../../base/stats/resample-memo";
import { failedReply } from "../../base/util/request-worker";
import type {
  CompareProgress,
  CompareReply,
  CompareRequest,
  DrawReply,
  DrawRequest,
  KeepReply,
  KeepRequest,
} from "./compare-off-thread";

parentPort!.on("message", (req: CompareRequest | DrawRequest | KeepRequest) => {
  if ("keepIn" in req) {
    let kept: KeepReply;
    try {
      kept = { id: req.id, ok: keepMissingForCompare(req.keepIn, req.minBytes) };
    } catch (e) {
      kept = failedReply(req.id, e);
    }
    parentPort!.postMessage(kept);
    return;
  }
  if ("missed" in req) {
    let drawn: DrawReply;
    try {
      drawn = { id: req.id, ok: drawMissed(req.missed) };
    } catch (e) {
      drawn = failedReply(req.id, e);
    }
    parentPort!.postMessage(drawn);
    return;
  }
  let reply: CompareReply;
  let save = () => {};
  try {
    const runs = loadCompareRuns(req.runDirs);
    save = runs.save;
    // What the runs' caches remember (an eval keeps its own columns' resampled means; a Compare
    // before, its tests too) makes the table first; when something was not remembered (10^8 draws
    // at 10,000 questions for runs never resampled), it goes to the page before the draws.
    const remembered = runs.resampling.rememberedOnly();
    const table = shownView(compareView(runs.inputs, req.origin, req.expect, req.searchDirs, remembered));
    if (remembered.missed.length === 0) reply = { id: req.id, ok: table };
    else {
      parentPort!.postMessage({ id: req.id, progress: table } satisfies CompareProgress);
      reply = {
        id: req.id,
        ok: shownView(compareView(runs.inputs, req.origin, req.expect, req.searchDirs, runs.resampling)),
      };
    }
  } catch (e) {
    reply = failedReply(req.id, e);
  }
  parentPort!.postMessage(reply);
  save();
});
