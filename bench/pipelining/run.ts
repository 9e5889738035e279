/**
 * Pipelining benchmark: does our Tinker client overlap work the way the service expects?
 *
 *   npx tsx bench/pipelining/run.ts [--latency MS] [--slow MS] [--sample-ms MS] [--steps N] [--samples N] [--in-flight N]
 *
 * Starts the local backend with an added per-request latency (a network round trip) and a fixed
 * time per queued operation (the service's own work), then measures through src/core/base/tinker:
 *  1. a training step — forward_backward and optim_step submitted back to back, then awaited —
 *     against the server's own time for the two ops (target ≤ 1.1×: one round trip, not two);
 *     the same step done one op at a time is printed as the baseline pipelining beats;
 *  2. eval-like sampling with N requests in flight: achieved concurrency (server time of all
 *     requests / wall time) against the ideal, N·op/(op + latency) — each request unavoidably
 *     spends one added latency on its submission (target ≥ 90 %). Sampling ops take --sample-ms,
 *     like real sampling calls, which take seconds.
 * Exits non-zero when a target is missed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import type { OpRecord } from "../../src/server/backend";
import { TinkerService } from "../../src/core/base/tinker";
import { sftDatum } from "../../src/core/base/tinker/wire/builders";

const { values } = parseArgs({
  options: {
    latency: { type: "string", default: "30" },
    slow: { type: "string", default: "200" },
    steps: { type: "string", default: "5" },
    samples: { type: "string", default: "96" },
    "in-flight": { type: "string", default: "32" },
    "sample-ms": { type: "string", default: "1500" },
  },
});
const latencyMs = Number(values.latency);
const slowMs = Number(values.slow);
const steps = Number(values.steps);
const totalSamples = Number(values.samples);
const inFlight = Number(values["in-flight"]);
const sampleMs = Number(values["sample-ms"]);

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "bench-pipelining-"));
  // The backend gets its own thread (its own event loop), like a remote service.
  // Worker threads do not inherit tsx's loader; register its CommonJS hook inside the worker.
  const entry = join(__dirname, "backend-worker.ts");
  const worker = new Worker(`require("tsx/cjs/api").register(); require(${JSON.stringify(entry)});`, { eval: true });
  let pending: ((m: { type: string; url?: string; records?: OpRecord[]; count?: number }) => void) | undefined;
  worker.on("message", (m) => pending?.(m));
  const call = (msg: object) =>
    new Promise<{ type: string; url?: string; records?: OpRecord[]; count?: number }>((resolve) => {
      pending = resolve;
      worker.postMessage(msg);
    });
  const started = await call({ type: "start", options: { dir, seed: 0, faults: { latencyMs, slowFutureMs: slowMs } } });
  const service = new TinkerService({ apiKey: "tml-bench", baseUrl: started.url!, log: () => {} });
  const opCount = async () => (await call({ type: "opLog", from: 1e9 })).count!;
  const serverMs = async (from: number, kinds: string[]) =>
    (await call({ type: "opLog", from }))
      .records!.filter((r) => kinds.includes(r.kind))
      .reduce((s, r) => s + (r.end - r.start), 0);
  try {
    const trainer = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 8 });
    const seq = Array.from({ length: 64 }, (_, i) => 1000 + ((i * 7) % 50));
    const data = Array.from({ length: 8 }, () =>
      sftDatum(
        seq,
        seq.map((_, i) => (i >= 32 ? 1 : 0)),
      ),
    );
    // Warm-up (first requests pay for connection set-up and JIT).
    await trainer.forwardBackward(data, "cross_entropy").result();
    await trainer.optimStep({ learning_rate: 1e-3 }).result();

    const measure = async (pipelined: boolean) => {
      const ratios: number[] = [];
      for (let i = 0; i < steps; i++) {
        const from = await opCount();
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
        const wall = performance.now() - t0;
        ratios.push(wall / (await serverMs(from, ["forward_backward", "optim_step"])));
      }
      return ratios.sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
    };
    const pipelinedRatio = await measure(true);
    const sequentialRatio = await measure(false);

    const sampler = await trainer.saveWeightsAndGetSamplingClient().result();
    const prompt = seq.slice(0, 16);
    await sampler.sample({ prompt, maxTokens: 4, seed: 0 }).result();
    await call({ type: "faults", faults: { slowFutureMs: sampleMs } });
    const from = await opCount();
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
    const achieved = (await serverMs(from, ["sample"])) / wall;
    const ideal = (inFlight * sampleMs) / (sampleMs + latencyMs);

    const rows: Array<[string, string, string, boolean]> = [
      ["train step, pipelined: wall / server time", pipelinedRatio.toFixed(3), "≤ 1.10", pipelinedRatio <= 1.1],
      ["train step, one op at a time (baseline)", sequentialRatio.toFixed(3), "—", true],
      [
        `sampling, ${inFlight} in flight: concurrency / ideal`,
        `${achieved.toFixed(1)} / ${ideal.toFixed(1)} = ${((100 * achieved) / ideal).toFixed(1)} %`,
        "≥ 90 %",
        achieved / ideal >= 0.9,
      ],
    ];
    console.log(
      `local backend: +${latencyMs} ms per request; ${slowMs} ms per training op, ${sampleMs} ms per sample; ${steps} steps (median), ${totalSamples} samples`,
    );
    const w = Math.max(...rows.map((r) => r[0].length));
    console.log(`${"measure".padEnd(w)}  ${"value".padStart(22)}  target   ok`);
    for (const [name, value, target, ok] of rows)
      console.log(`${name.padEnd(w)}  ${value.padStart(22)}  ${target.padEnd(7)}  ${ok ? "yes" : "NO"}`);
    return rows.every((r) => r[3]) ? 0 : 1;
  } finally {
    service.close();
    await call({ type: "close" });
    await worker.terminate();
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
