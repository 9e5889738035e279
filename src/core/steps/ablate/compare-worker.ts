/**
 * Worker-thread entry of the Compare panel's report (bundled as dist/compare-worker.js next to the
 * extension; under tsx it runs as .ts): reads the runs and runs ablate's resamples here, off the
 * extension host's thread, which at 10,000 episodes they held for seconds. The last runs read are
 * kept: changing the expected differences recomputes without reading them again.
 */
import { parentPort } from "node:worker_threads";
import { loadAblationInputs, type AblationInput } from "./ablate";
import { compareView } from "./compare-setup";
import type { CompareReply, CompareRequest } from "./compare-off-thread";

let last: { key: string; inputs: AblationInput[] } | undefined;

parentPort!.on("message", (req: CompareRequest) => {
  let reply: CompareReply;
  try {
    const key = JSON.stringify(req.runDirs);
    if (last?.key !== key) last = { key, inputs: loadAblationInputs(req.runDirs) };
    reply = { id: req.id, ok: compareView(last.inputs, req.origin, req.expect, req.searchDirs) };
  } catch (e) {
    reply = { id: req.id, failed: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(reply);
});
