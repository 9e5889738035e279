/**
 * Saving and loading the tiny model: a folder with `model.json` (config, vocabulary, tensor table)
 * and `weights.bin` (Float64 little-endian, tensors back to back), plus `optimizer.bin` (Adam's
 * moments, same layout twice) for training-state checkpoints. Files are written to a temporary
 * name and renamed, so a crash never leaves a half-written checkpoint behind.
 */
import { mkdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { endianness } from "node:os";
import { UserInputError } from "./errors";
import { Tensor } from "./tensor";
import { TinyModel, type TinyModelConfig } from "./tiny-model";
import { writeFileAtomic } from "../../core/base/util/atomic-write";

/** /2: fixed hashed vocabulary (no per-id rows grown from requests). */
const FORMAT = "agent-lab-tiny-model/2";

interface Manifest {
  format: string;
  config: TinyModelConfig;
  adamStep: number;
  hasOptimizer: boolean;
  tensors: Array<{ name: string; rows: number; cols: number }>;
}

const LITTLE_ENDIAN = endianness() === "LE";

/** Float64 little-endian, tensors back to back. */
function pack(model: TinyModel, pick: (t: Tensor) => Float64Array[]): Uint8Array {
  const parts = model.tensors.flatMap((t) => pick(t));
  const total = parts.reduce((s, a) => s + a.length, 0);
  const buf = Buffer.alloc(total * 8);
  let off = 0;
  for (const a of parts) {
    if (LITTLE_ENDIAN) buf.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), off);
    else for (let i = 0; i < a.length; i++) buf.writeDoubleLE(a[i], off + i * 8);
    off += a.byteLength;
  }
  return buf;
}

function unpack(from: Buffer, offset: number, into: Float64Array): void {
  if (LITTLE_ENDIAN)
    new Uint8Array(into.buffer, into.byteOffset, into.byteLength).set(from.subarray(offset, offset + into.byteLength));
  else for (let i = 0; i < into.length; i++) into[i] = from.readDoubleLE(offset + i * 8);
}

export function saveModel(model: TinyModel, dir: string, withOptimizer: boolean): number {
  mkdirSync(dir, { recursive: true });
  const weights = pack(model, (t) => [t.data]);
  const optimizer = withOptimizer ? pack(model, (t) => [t.adamM, t.adamV]) : undefined;
  writeFileAtomic(join(dir, "weights.bin"), weights);
  if (optimizer) writeFileAtomic(join(dir, "optimizer.bin"), optimizer);
  const manifest: Manifest = {
    format: FORMAT,
    config: model.config,
    adamStep: model.adamStep,
    hasOptimizer: withOptimizer,
    tensors: model.tensors.map((t) => ({ name: t.name, rows: t.rows, cols: t.cols })),
  };
  // The manifest goes last: its presence marks a complete checkpoint.
  writeFileAtomic(join(dir, "model.json"), JSON.stringify(manifest));
  return weights.byteLength + (optimizer?.byteLength ?? 0);
}

/** Loads a saved model; the optimiser state only when asked and present (else Adam starts fresh). */
export function loadModel(dir: string, withOptimizer: boolean, forTraining = true): TinyModel {
  const manifestPath = join(dir, "model.json");
  if (!existsSync(manifestPath)) throw new Error(`no model checkpoint in ${dir}`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;
  if (manifest.format !== FORMAT) {
    throw new UserInputError(
      `${manifestPath}: checkpoint format ${manifest.format} is not ${FORMAT} (made by an older local backend, whose vocabulary grew with requests); retrain it`,
    );
  }
  const model = new TinyModel(manifest.config, false, forTraining);
  const weights = readFileSync(join(dir, "weights.bin"));
  const optim = withOptimizer && manifest.hasOptimizer ? readFileSync(join(dir, "optimizer.bin")) : undefined;
  let wOff = 0;
  let oOff = 0;
  const tensors = manifest.tensors.map((spec) => {
    const template = model.tensors.find((t) => t.name === spec.name);
    if (!template) throw new Error(`${manifestPath}: unknown tensor ${spec.name}`);
    const t = new Tensor(spec.name, spec.rows, spec.cols, template.group, forTraining);
    const bytes = spec.rows * spec.cols * 8;
    if (wOff + bytes > weights.byteLength) throw new Error(`${dir}/weights.bin: shorter than model.json says`);
    unpack(weights, wOff, t.data);
    wOff += bytes;
    if (optim && forTraining) {
      if (oOff + 2 * bytes > optim.byteLength) throw new Error(`${dir}/optimizer.bin: shorter than model.json says`);
      unpack(optim, oOff, t.adamM);
      unpack(optim, oOff + bytes, t.adamV);
    }
    if (optim) oOff += 2 * bytes;
    return t;
  });
  if (wOff !== weights.byteLength) throw new Error(`${dir}/weights.bin: size does not match model.json`);
  model.adoptState(tensors, optim ? manifest.adamStep : 0);
  return model;
}
