/**
 * Pipelining benchmark: does our Tinker client overlap work the way the service expects?
 *
 *   npx tsx bench/pipelining/run.ts [--latency MS] [--slow MS] [--steps N] [--samples N] [--in-flight N]
 *
 * Starts the local backend with an added per-request latency (a network round trip) and a fixed
 * time per queued operation (the service's own work), then measures through src/core/tinker:
 *  1. a training step — forward_backward and optim_step submitted back to back, then awaited —
 *     against the server's own time for the two ops (target ≤ 1.1×: one round trip, not two);
 *     the same step done one op at a time is printed as the baseline pipelining beats;
 *  2. eval-like sampling with N requests in flight: achieved concurrency (server time of all
 *     requests / wall time) against the ideal N (target ≥ 90 %).
 * Exits non-zero when a target is missed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startLocalBackend } from "../../src/server";
import { TinkerService } from "../../src/core/tinker";
import { sftDatum } from "../../src/core/tinker/wire/builders";

const { values } = parseArgs({
  options: {
    latency: { type: "string", default: "30" },
    slow: { type: "string", default: "200" },
    steps: { type: "string", default: "5" },
    samples: { type: "string", default: "96" },
    "in-flight": { type: "string", default: "32" },
  },
});
const latencyMs = Number(values.latency);
const slowMs = Number(values.slow);
const steps = Number(values.steps);
const totalSamples = Number(values.samples);
const inFlight = Number(values["in-flight"]);

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "bench-pipelining-"));
  const backend = await startLocalBackend({ dir, seed: 0, faults: { latencyMs, slowFutureMs: slowMs } });
  const service = new TinkerService({ apiKey: "tml-bench", baseUrl: backend.url, log: () => {} });
  const log = backend.backend.opLog;
  const serverMs = (from: number, kinds: string[]) =>
    log.slice(from).filter((r) => kinds.includes(r.kind)).reduce((s, r) => s + (r.end - r.start), 0);
  try {
    const trainer = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 8 });
    const seq = Array.from({ length: 64 }, (_, i) => 1000 + ((i * 7) % 50));
    const data = Array.from({ length: 8 }, () => sftDatum(seq, seq.map((_, i) => (i >= 32 ? 1 : 0))));
    // Warm-up (first requests pay for connection set-up and JIT).
    await trainer.forwardBackward(data, "cross_entropy").result();
    await trainer.optimStep({ learning_rate: 1e-3 }).result();

    const measure = async (pipelined: boolean) => {
      const ratios: number[] = [];
      for (let i = 0; i < steps; i++) {
        const from = log.length;
        const t0 = performance.now();
        if (pipelined) {
          const fb = trainer.forwardBackward(data, "cross_entropy");
          const opt = trainer.optimStep({ learning_rate: 1e-3 });
          await fb.result();
          await opt.result();
        } else {
          await trainer.forwardBackward(data, "cross_entropy").result();
          await trainer.optimStep({ learning_rate: 1e-3 }).result();
        }
        ratios.push((performance.now() - t0) / serverMs(from, ["forward_backward", "optim_step"]));
      }
      return ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
    };
    const pipelinedRatio = await measure(true);
    const sequentialRatio = await measure(false);

    const sampler = await trainer.saveWeightsAndGetSamplingClient().result();
    const prompt = seq.slice(0, 16);
    await sampler.sample({ prompt, maxTokens: 4, seed: 0 }).result();
    const from = log.length;
    const t0 = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < totalSamples) {
        const i = next++;
        await sampler.sample({ prompt, maxTokens: 4, seed: i }).result();
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    const wall = performance.now() - t0;
    const achieved = serverMs(from, ["sample"]) / wall;

    const rows: Array<[string, string, string, boolean]> = [
      ["train step, pipelined: wall / server time", pipelinedRatio.toFixed(3), "≤ 1.10", pipelinedRatio <= 1.1],
      ["train step, one op at a time (baseline)", sequentialRatio.toFixed(3), "—", true],
      [`sampling, ${inFlight} in flight: concurrency / ideal`, `${achieved.toFixed(1)} / ${inFlight} = ${((100 * achieved) / inFlight).toFixed(1)} %`, "≥ 90 %", achieved / inFlight >= 0.9],
    ];
    console.log(`local backend: +${latencyMs} ms per request, ${slowMs} ms per op; ${steps} steps (median), ${totalSamples} samples`);
    const w = Math.max(...rows.map((r) => r[0].length));
    console.log(`${"measure".padEnd(w)}  ${"value".padStart(22)}  target   ok`);
    for (const [name, value, target, ok] of rows) console.log(`${name.padEnd(w)}  ${value.padStart(22)}  ${target.padEnd(7)}  ${ok ? "yes" : "NO"}`);
    return rows.every((r) => r[3]) ? 0 : 1;
  } finally {
    service.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => (process.exitCode = code),
  (e) => {
    console.error(e);
    process.exitCode = 1;
  },
);
