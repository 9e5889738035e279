/**
 * Local-model cost by vocabulary-head size: how long the tiny model takes for the offline task's
 * shapes (a 1000-token SFT datum, forward_backward; greedy and temperature-1 sampling of 32 tokens
 * after a 1000-token prompt) with the shipped bucket count against smaller and larger ones, so
 * the choice of DEFAULT_MODEL_CONFIG.buckets can be checked on any machine.
 *
 *   npx tsx bench/local-model/run.ts [--repeat N]
 */
import { parseArgs } from "node:util";
import { sample } from "../../src/server/model/sample";
import { DEFAULT_MODEL_CONFIG, TinyModel } from "../../src/server/model/tiny-model";
import { forwardBackward, optimStep } from "../../src/server/model/train";

const { values } = parseArgs({ options: { repeat: { type: "string", default: "3" } } });
const repeat = Number(values.repeat);
const ADAM = { learning_rate: 0.01, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 };
// About the offline world's distinct ids, spread over the Qwen id range.
const id = (i: number) => (Math.imul(i % 1000, 2654435761) >>> 0) % 150_000;
const tokens = Array.from({ length: 1000 }, (_, i) => id(i * 31));
const datum = {
  input: tokens.slice(0, -1),
  targets: tokens.slice(1),
  k: 1,
  lossInputs: { weights: tokens.slice(1).map((_, i) => (i >= 900 ? 1 : 0)) },
};

function median(f: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

const rows: string[][] = [];
for (const buckets of [256, DEFAULT_MODEL_CONFIG.buckets, 4096]) {
  const m = new TinyModel({ seed: 0, buckets });
  forwardBackward(m, [datum], "cross_entropy", {}, false);
  const fb = median(() => {
    forwardBackward(m, [datum], "cross_entropy", {}, true);
    optimStep(m, ADAM);
  });
  const opts = { maxTokens: 32, topK: -1, topP: 1, seed: 1, stopTokens: [], stopStrings: [] };
  const greedy = median(() => sample(m, tokens, 1, { ...opts, temperature: 0 }));
  const t1 = median(() => sample(m, tokens, 1, { ...opts, temperature: 1 }));
  rows.push([
    `${buckets}${buckets === DEFAULT_MODEL_CONFIG.buckets ? " (shipped)" : ""}`,
    fb.toFixed(0),
    greedy.toFixed(0),
    t1.toFixed(0),
  ]);
}
const header = ["buckets", "fwd+bwd+step 1000 tok (ms)", "greedy 32 tok (ms)", "T=1 32 tok (ms)"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r: string[]) => r.map((c, i) => c.padStart(widths[i])).join("  ");
console.log(line(header));
for (const r of rows) console.log(line(r));
