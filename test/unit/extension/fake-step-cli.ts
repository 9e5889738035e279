/**
 * A stand-in `agent-lab` step for the job runner's tests, bundled by `fakeStepCli()`: it reports
 * progress with core's real ProgressWriter into its run folder (as every step does), prints a log
 * line per unit (and, to prove redaction, its key), and stops cleanly on SIGTERM.
 *
 *   node fake-cli.js <mode> <units> <delayMs> [runDir]     mode "fail" exits 3 at the end
 */
import { mkdirSync } from "node:fs";
import { ProgressWriter } from "../../../src/core/base/runs/progress";

const [mode, unitsArg, delayArg, runDir] = process.argv.slice(2);
const total = Number(unitsArg || 20);
const delay = Number(delayArg || 30);
let done = 0;
let stop = false;
process.on("SIGTERM", () => (stop = true));
console.log(`agent-lab fake ${mode} key=${process.env.TINKER_API_KEY || "none"}`);
if (runDir) mkdirSync(runDir, { recursive: true });
const progress = runDir
  ? new ProgressWriter(runDir, { step: "train-grpo", label: "GRPO", unit: "step", planned: total, minIntervalMs: 0 })
  : undefined;
const tick = () => {
  if (stop) {
    progress?.finish("interrupted");
    console.error(`SIGTERM: stopping; kept ${done}`);
    process.exit(1);
  }
  done++;
  progress?.update({ done });
  console.log(`step ${done} reward 0.5`);
  if (done >= total) {
    progress?.finish(mode === "fail" ? "failed" : "done");
    console.log("finished");
    process.exit(mode === "fail" ? 3 : 0);
  }
  setTimeout(tick, delay);
};
tick();
