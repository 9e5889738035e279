/**
 * Saving and loading the tiny model: a folder with `model.json` (config, vocabulary, tensor table)
 * and `weights.bin` (Float64 little-endian, tensors back to back), plus `optimizer.bin` (Adam's
 * moments, same layout twice) for training-state checkpoints. Files are written to a temporary
 * name and renamed, so a crash never leaves a half-written checkpoint behind.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { Tensor } from "./tensor";
import { TinyModel, type TinyModelConfig } from "./tiny-model";

const FORMAT = "agent-lab-tiny-model/1";

interface Manifest {
  format: string;
  config: TinyModelConfig;
  vocab: number[];
  adamStep: number;
  hasOptimizer: boolean;
  tensors: Array<{ name: string; rows: number; cols: number }>;
}

function writeAtomic(path: string, data: Uint8Array | string): void {
  writeFileSync(`${path}.tmp`, data);
  renameSync(`${path}.tmp`, path);
}

function pack(model: TinyModel, pick: (t: Tensor) => Float64Array[]): Uint8Array {
  const parts = model.tensors.flatMap((t) => pick(t).map((a) => a.subarray(0, t.size)));
  const total = parts.reduce((s, a) => s + a.length, 0);
  const buf = Buffer.alloc(total * 8);
  let off = 0;
  for (const a of parts) for (let i = 0; i < a.length; i++, off += 8) buf.writeDoubleLE(a[i], off);
  return buf;
}

export function saveModel(model: TinyModel, dir: string, withOptimizer: boolean): number {
  mkdirSync(dir, { recursive: true });
  const weights = pack(model, (t) => [t.data]);
  const optimizer = withOptimizer ? pack(model, (t) => [t.adamM, t.adamV]) : undefined;
  writeAtomic(join(dir, "weights.bin"), weights);
  if (optimizer) writeAtomic(join(dir, "optimizer.bin"), optimizer);
  const manifest: Manifest = {
    format: FORMAT,
    config: model.config,
    vocab: model.vocab,
    adamStep: model.adamStep,
    hasOptimizer: withOptimizer,
    tensors: model.tensors.map((t) => ({ name: t.name, rows: t.rows, cols: t.cols })),
  };
  // The manifest goes last: its presence marks a complete checkpoint.
  writeAtomic(join(dir, "model.json"), JSON.stringify(manifest));
  return weights.byteLength + (optimizer?.byteLength ?? 0);
}

/** Loads a saved model; the optimiser state only when asked and present (else Adam starts fresh). */
export function loadModel(dir: string, withOptimizer: boolean, forTraining = true): TinyModel {
  const manifestPath = join(dir, "model.json");
  if (!existsSync(manifestPath)) throw new Error(`no model checkpoint in ${dir}`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;
  if (manifest.format !== FORMAT) throw new Error(`${manifestPath}: unknown format ${manifest.format}`);
  const model = new TinyModel(manifest.config, false, forTraining);
  const weights = readFileSync(join(dir, "weights.bin"));
  const optim = withOptimizer && manifest.hasOptimizer ? readFileSync(join(dir, "optimizer.bin")) : undefined;
  let wOff = 0;
  let oOff = 0;
  const tensors = manifest.tensors.map((spec) => {
    const template = model.tensors.find((t) => t.name === spec.name);
    if (!template) throw new Error(`${manifestPath}: unknown tensor ${spec.name}`);
    const t = new Tensor(spec.name, spec.rows, spec.cols, template.group, template.perToken, forTraining);
    const n = spec.rows * spec.cols;
    for (let i = 0; i < n; i++, wOff += 8) t.data[i] = weights.readDoubleLE(wOff);
    if (optim && forTraining) {
      for (let i = 0; i < n; i++, oOff += 8) t.adamM[i] = optim.readDoubleLE(oOff);
      for (let i = 0; i < n; i++, oOff += 8) t.adamV[i] = optim.readDoubleLE(oOff);
    }
    return t;
  });
  if (wOff !== weights.byteLength) throw new Error(`${dir}/weights.bin: size does not match model.json`);
  model.adoptState(manifest.vocab, tensors, optim ? manifest.adamStep : 0);
  return model;
}
