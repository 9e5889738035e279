/**
 * The local backend's model: a tiny next-token model a CPU trains in seconds, with hand-written
 * exact gradients. It stands in for an LLM only so the protocol, the training loops and the offline
 * task can run end to end; its numbers say nothing about Qwen.
 *
 * At position t (predicting token t+1 from tokens x_0..x_t):
 *   e(x)     = E0[x] + Ea[x]·Eb                       token embedding: frozen base + low-rank adapter
 *   m_t      = [EMA_λ1(E0[x]) ; … ]                      decaying averages of the context so far
 *   h        = tanh(c + Σ_j (M0_j + Ma_j·Mb_j) e(x_{t-j}) + R·m_t)   j < taps (missing taps count as zero)
 *   p_vocab  = softmax_v((U0[v] + Ua[v]·Ub)·h + ub[v])    over the model's vocabulary
 *   q        = Wq·[h ; E0[x_t]],  key_s = Wk·[E0[x_{s-1}] ; E0[x_s]]   for s = 0..t
 *   α        = softmax_s(q·key_s / √dim)               attention over the context
 *   p_copy   = Σ_s α_s·[x_s = v]                       copy distribution (copies names from context)
 *   g        = σ(wg·h + bg)                            learned gate
 *   p(v)     = (1 − g)·p_vocab(v) + g·p_copy(v)
 * Wq is initialised with an "induction" bias (query ≈ current token, key ≈ previous token) so the
 * copy head starts by continuing spans it has seen, which is what copying a multi-token name needs.
 *
 * The memory term m_t (averages of frozen embeddings, one per decay rate, R starting at zero) is
 * what lets the model tell apart positions whose last few tokens are identical: the opening of a
 * first reply and of a reply after search results both end in "<|im_start|>assistant\n…", and
 * only the longer past says whether a question or a paragraph about a company came just before.
 *
 * Vocabulary: the model only knows token ids it has been shown (in any prompt, input or target).
 * An unseen id gets a new row when it first appears; its frozen base rows come from a hash of
 * (seed, id) and its adapter rows start at zero, so the model's function depends on which ids it
 * has seen, not on the order. Probability mass is spread over known ids only, so showing a new id
 * slightly changes every other id's probability — a stand-in's honest limitation.
 *
 * Trainable groups follow the LoRA flags: unembed = (Ua, Ub, ub), mlp = (Ea, Eb, Ma, Mb, c),
 * attn = (Wq, Wk, wg, bg). E0, U0 and M0 are the frozen "base model".
 */
import { Rng, hashSeed } from "./rng";
import { Tensor, type ParamGroup } from "./tensor";

export interface TinyModelConfig {
  /** Hidden size. */
  dim: number;
  /** Adapter rank (the LoRA rank a client asked for, capped at maxRank). */
  rank: number;
  /** How many trailing tokens feed the hidden state. */
  taps: number;
  /** Decay rates of the context memory m_t (one average of d values per rate; empty = none). */
  memoryDecays: number[];
  seed: number;
  trainUnembed: boolean;
  trainMlp: boolean;
  trainAttn: boolean;
}

export const DEFAULT_MODEL_CONFIG: TinyModelConfig = {
  dim: 32,
  rank: 8,
  taps: 3,
  memoryDecays: [0.8, 0.97],
  seed: 0,
  trainUnembed: true,
  trainMlp: true,
  trainAttn: true,
};
export const MAX_RANK = 64;

/** Per-request view of the effective (base + adapter) matrices, and their gradients. */
interface Effective {
  E: Float64Array; // V×d
  U: Float64Array; // V×d
  M: Float64Array; // taps×d×d
}

/** One sequence being read or generated: vocabulary indices plus the copy head's keys. */
export class SequenceState {
  readonly tokens: number[] = [];
  readonly keyIn: Float64Array[] = [];
  readonly keys: Float64Array[] = [];
  /** Per position, the context memory m_t (see the header). */
  readonly memory: Float64Array[] = [];
}

/** Everything the forward pass at one position computed that the backward pass needs. */
interface PositionState {
  t: number;
  h: Float64Array;
  qin: Float64Array;
  q: Float64Array;
  pv: Float64Array;
  alpha: Float64Array;
  g: number;
}

export interface PositionGradient {
  eff: Effective;
  dKeys: Float64Array[];
}

export class TinyModel {
  readonly config: TinyModelConfig;
  /** Vocabulary index → token id. */
  readonly vocab: number[] = [];
  private readonly indexOf = new Map<number, number>();
  readonly tensors: Tensor[] = [];
  /** Number of optimiser steps taken (Adam's t). */
  adamStep = 0;
  private effCache: Effective | undefined;

  readonly E0: Tensor;
  readonly Ea: Tensor;
  readonly Eb: Tensor;
  readonly U0: Tensor;
  readonly Ua: Tensor;
  readonly Ub: Tensor;
  readonly ub: Tensor;
  readonly M0: Tensor;
  readonly Ma: Tensor;
  readonly Mb: Tensor;
  readonly c: Tensor;
  readonly R: Tensor;
  readonly Wq: Tensor;
  readonly Wk: Tensor;
  readonly wg: Tensor;
  readonly bg: Tensor;

  /** `trainable` false makes an inference-only model (no gradient or optimiser buffers). */
  constructor(config: Partial<TinyModelConfig> = {}, init = true, readonly trainable = true) {
    const cfg = { ...DEFAULT_MODEL_CONFIG, ...config };
    cfg.rank = Math.max(1, Math.min(MAX_RANK, Math.floor(cfg.rank)));
    this.config = cfg;
    const { dim: d, rank: r, taps } = cfg;
    const add = (name: string, rows: number, cols: number, group: ParamGroup, perToken = false) => {
      const t = new Tensor(name, rows, cols, group, perToken, trainable);
      this.tensors.push(t);
      return t;
    };
    this.E0 = add("E0", 0, d, "frozen", true);
    this.Ea = add("Ea", 0, r, "mlp", true);
    this.Eb = add("Eb", r, d, "mlp");
    this.U0 = add("U0", 0, d, "frozen", true);
    this.Ua = add("Ua", 0, r, "unembed", true);
    this.Ub = add("Ub", r, d, "unembed");
    this.ub = add("ub", 0, 1, "unembed", true);
    this.M0 = add("M0", taps * d, d, "frozen");
    this.Ma = add("Ma", taps * d, r, "mlp");
    this.Mb = add("Mb", taps * r, d, "mlp");
    this.c = add("c", 1, d, "mlp");
    // Zero at creation, so a model without memory behaves exactly as before it existed.
    this.R = add("R", d, Math.max(1, cfg.memoryDecays.length * d), "mlp");
    this.Wq = add("Wq", d, 2 * d, "attn");
    this.Wk = add("Wk", d, 2 * d, "attn");
    this.wg = add("wg", 1, d, "attn");
    this.bg = add("bg", 1, 1, "attn");
    if (init) this.initShared();
  }

  private initShared(): void {
    const { dim: d, rank: r, taps, seed } = this.config;
    const fill = (t: Tensor, scale: number) => {
      const rng = new Rng(hashSeed(seed, t.name));
      const v = t.values();
      for (let i = 0; i < v.length; i++) v[i] = rng.normal() * scale;
    };
    fill(this.Eb, 1 / Math.sqrt(r));
    fill(this.Ub, 1 / Math.sqrt(r * d));
    fill(this.M0, 1 / Math.sqrt(taps * d));
    fill(this.Mb, 1 / Math.sqrt(d));
    fill(this.Wq, 0.5 / Math.sqrt(d));
    fill(this.Wk, 0.5 / Math.sqrt(d));
    // Induction bias: query reads the current token, key reads the previous token (see header).
    const wq = this.Wq.values();
    const wk = this.Wk.values();
    for (let i = 0; i < d; i++) {
      wq[i * 2 * d + d + i] += 0.5;
      wk[i * 2 * d + i] += 1;
    }
    this.bg.values()[0] = -1;
  }

  get vocabSize(): number {
    return this.vocab.length;
  }

  /** True when the model has seen this token id. */
  knows(tokenId: number): boolean {
    return this.indexOf.has(tokenId);
  }

  /** Vocabulary index of a token id, adding the id (and its rows) when new. */
  ensureToken(tokenId: number): number {
    const known = this.indexOf.get(tokenId);
    if (known !== undefined) return known;
    if (!Number.isInteger(tokenId) || tokenId < 0) throw new RangeError(`token id must be a non-negative integer, got ${tokenId}`);
    const { seed, dim: d } = this.config;
    const gaussian = (name: string, scale: number) => (out: Float64Array) => {
      const rng = new Rng(hashSeed(seed, name, tokenId));
      for (let i = 0; i < out.length; i++) out[i] = rng.normal() * scale;
    };
    this.E0.addRow(gaussian("E0", 1));
    this.U0.addRow(gaussian("U0", 1 / Math.sqrt(d)));
    this.Ea.addRow();
    this.Ua.addRow();
    this.ub.addRow();
    const index = this.vocab.length;
    this.vocab.push(tokenId);
    this.indexOf.set(tokenId, index);
    this.effCache = undefined;
    return index;
  }

  /** Call after changing weights in place (optimiser step, load). */
  invalidate(): void {
    this.effCache = undefined;
  }

  isTrainable(t: Tensor): boolean {
    const c = this.config;
    return (t.group === "unembed" && c.trainUnembed) || (t.group === "mlp" && c.trainMlp) || (t.group === "attn" && c.trainAttn);
  }

  zeroGrad(): void {
    for (const t of this.tensors) t.zeroGrad();
  }

  /** E = E0 + Ea·Eb, U = U0 + Ua·Ub, M_j = M0_j + Ma_j·Mb_j, cached until weights or vocabulary change. */
  effective(): Effective {
    if (this.effCache) return this.effCache;
    const { dim: d, rank: r, taps } = this.config;
    const V = this.vocabSize;
    const lowRank = (base: Float64Array, a: Float64Array, b: Float64Array, rows: number, aOff = 0, bOff = 0, outOff = 0, out?: Float64Array) => {
      const res = out ?? new Float64Array(rows * d);
      for (let i = 0; i < rows; i++) {
        for (let l = 0; l < d; l++) {
          let s = base[outOff + i * d + l];
          for (let k = 0; k < r; k++) s += a[aOff + i * r + k] * b[bOff + k * d + l];
          res[outOff + i * d + l] = s;
        }
      }
      return res;
    };
    const E = lowRank(this.E0.values(), this.Ea.values(), this.Eb.values(), V);
    const U = lowRank(this.U0.values(), this.Ua.values(), this.Ub.values(), V);
    const M = new Float64Array(taps * d * d);
    for (let j = 0; j < taps; j++) lowRank(this.M0.values(), this.Ma.values(), this.Mb.values(), d, j * d * r, j * r * d, j * d * d, M);
    this.effCache = { E, U, M };
    return this.effCache;
  }

  /** Appends a (vocabulary-index) token to a sequence, computing its copy key. */
  appendToken(seq: SequenceState, index: number): void {
    const d = this.config.dim;
    const E0 = this.E0.values();
    const s = seq.tokens.length;
    const kin = new Float64Array(2 * d);
    if (s > 0) kin.set(E0.subarray(seq.tokens[s - 1] * d, (seq.tokens[s - 1] + 1) * d), 0);
    kin.set(E0.subarray(index * d, (index + 1) * d), d);
    const wk = this.Wk.values();
    const key = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      let acc = 0;
      for (let l = 0; l < 2 * d; l++) acc += wk[i * 2 * d + l] * kin[l];
      key[i] = acc;
    }
    const decays = this.config.memoryDecays;
    const mem = new Float64Array(this.R.cols);
    const prev = s > 0 ? seq.memory[s - 1] : undefined;
    const e = E0.subarray(index * d, (index + 1) * d);
    decays.forEach((lambda, k) => {
      for (let i = 0; i < d; i++) mem[k * d + i] = (prev ? lambda * prev[k * d + i] : 0) + (1 - lambda) * e[i];
    });
    seq.tokens.push(index);
    seq.keyIn.push(kin);
    seq.keys.push(key);
    seq.memory.push(mem);
  }

  /** Forward pass at position t of a sequence (needs tokens 0..t). */
  position(seq: SequenceState, t: number): PositionState {
    const { dim: d, taps } = this.config;
    const eff = this.effective();
    const V = this.vocabSize;
    const hpre = new Float64Array(d);
    hpre.set(this.c.values());
    for (let j = 0; j < taps && t - j >= 0; j++) {
      const x = seq.tokens[t - j];
      for (let i = 0; i < d; i++) {
        let acc = 0;
        for (let l = 0; l < d; l++) acc += eff.M[j * d * d + i * d + l] * eff.E[x * d + l];
        hpre[i] += acc;
      }
    }
    if (this.config.memoryDecays.length > 0) {
      const R = this.R.values();
      const mem = seq.memory[t];
      const cols = this.R.cols;
      for (let i = 0; i < d; i++) {
        let acc = 0;
        for (let l = 0; l < cols; l++) acc += R[i * cols + l] * mem[l];
        hpre[i] += acc;
      }
    }
    const h = hpre.map(Math.tanh);
    // Vocabulary head.
    const ub = this.ub.values();
    const U = eff.U;
    const pv = new Float64Array(V);
    let zmax = -Infinity;
    for (let v = 0, row = 0; v < V; v++, row += d) {
      let z = ub[v];
      for (let l = 0; l < d; l++) z += U[row + l] * h[l];
      pv[v] = z;
      if (z > zmax) zmax = z;
    }
    let zsum = 0;
    for (let v = 0; v < V; v++) {
      pv[v] = Math.exp(pv[v] - zmax);
      zsum += pv[v];
    }
    for (let v = 0; v < V; v++) pv[v] /= zsum;
    // Copy head.
    const qin = new Float64Array(2 * d);
    qin.set(h, 0);
    qin.set(this.E0.values().subarray(seq.tokens[t] * d, (seq.tokens[t] + 1) * d), d);
    const wq = this.Wq.values();
    const q = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      let acc = 0;
      for (let l = 0; l < 2 * d; l++) acc += wq[i * 2 * d + l] * qin[l];
      q[i] = acc;
    }
    const alpha = new Float64Array(t + 1);
    const scale = 1 / Math.sqrt(d);
    let amax = -Infinity;
    for (let s = 0; s <= t; s++) {
      const k = seq.keys[s];
      let a = 0;
      for (let i = 0; i < d; i++) a += q[i] * k[i];
      alpha[s] = a * scale;
      if (alpha[s] > amax) amax = alpha[s];
    }
    let asum = 0;
    for (let s = 0; s <= t; s++) {
      alpha[s] = Math.exp(alpha[s] - amax);
      asum += alpha[s];
    }
    for (let s = 0; s <= t; s++) alpha[s] /= asum;
    // Gate.
    const wg = this.wg.values();
    let gpre = this.bg.values()[0];
    for (let l = 0; l < d; l++) gpre += wg[l] * h[l];
    const g = 1 / (1 + Math.exp(-gpre));
    return { t, h, qin, q, pv, alpha, g };
  }

  /** Copy probability of vocabulary index y (summed in position order, same as fullDistribution). */
  private copyProb(seq: SequenceState, ps: PositionState, y: number): number {
    let pc = 0;
    for (let s = 0; s <= ps.t; s++) if (seq.tokens[s] === y) pc += ps.alpha[s];
    return pc;
  }

  /** log p(y) at a position, for a vocabulary index y. */
  logProb(seq: SequenceState, ps: PositionState, y: number): number {
    return Math.log((1 - ps.g) * ps.pv[y] + ps.g * this.copyProb(seq, ps, y));
  }

  /** The whole next-token distribution at a position (for sampling and top-k prompt logprobs). */
  fullDistribution(seq: SequenceState, ps: PositionState): Float64Array {
    const pc = new Float64Array(this.vocabSize);
    for (let s = 0; s <= ps.t; s++) pc[seq.tokens[s]] += ps.alpha[s];
    const p = new Float64Array(this.vocabSize);
    for (let v = 0; v < p.length; v++) p[v] = (1 - ps.g) * ps.pv[v] + ps.g * pc[v];
    return p;
  }

  /** Fresh gradient buffers for the effective matrices of one forward_backward call. */
  newGradient(): PositionGradient {
    const { dim: d, taps } = this.config;
    const V = this.vocabSize;
    return { eff: { E: new Float64Array(V * d), U: new Float64Array(V * d), M: new Float64Array(taps * d * d) }, dKeys: [] };
  }

  /**
   * Back-propagates dL/dlog p(y) for the candidate indices `ys` at one position. Gradients of
   * directly used tensors go to their .grad; those of effective matrices to `grad.eff` (folded into
   * the adapters by finishGradient) and those of the copy keys to `grad.dKeys` (by finishSequence).
   */
  backwardPosition(seq: SequenceState, ps: PositionState, ys: number[], dlps: number[], grad: PositionGradient): void {
    const { dim: d, taps } = this.config;
    const eff = this.effective();
    const V = this.vocabSize;
    const { t, h, pv, alpha, g } = ps;
    let dg = 0;
    let S = 0;
    const dz = new Float64Array(V);
    const dAlphaByToken = new Map<number, number>();
    for (let k = 0; k < ys.length; k++) {
      const y = ys[k];
      if (dlps[k] === 0) continue;
      const pc = this.copyProb(seq, ps, y);
      const P = (1 - g) * pv[y] + g * pc;
      const gP = dlps[k] / P;
      dg += gP * (pc - pv[y]);
      const coef = gP * (1 - g) * pv[y];
      dz[y] += coef;
      S += coef;
      dAlphaByToken.set(y, (dAlphaByToken.get(y) ?? 0) + gP * g);
    }
    for (let v = 0; v < V; v++) dz[v] -= pv[v] * S;
    const dh = new Float64Array(d);
    // Vocabulary head: z_v = U[v]·h + ub[v].
    const dub = this.ub.grad;
    const U = eff.U;
    const dU = grad.eff.U;
    for (let v = 0, row = 0; v < V; v++, row += d) {
      const z = dz[v];
      if (z === 0) continue;
      dub[v] += z;
      for (let l = 0; l < d; l++) {
        dU[row + l] += z * h[l];
        dh[l] += z * U[row + l];
      }
    }
    // Copy head: α = softmax(q·key/√d).
    if (dAlphaByToken.size > 0) {
      const dAlpha = new Float64Array(t + 1);
      let mean = 0;
      for (let s = 0; s <= t; s++) {
        dAlpha[s] = dAlphaByToken.get(seq.tokens[s]) ?? 0;
        mean += alpha[s] * dAlpha[s];
      }
      const scale = 1 / Math.sqrt(d);
      const dq = new Float64Array(d);
      for (let s = 0; s <= t; s++) {
        const da = alpha[s] * (dAlpha[s] - mean) * scale;
        if (da === 0) continue;
        const key = seq.keys[s];
        grad.dKeys[s] ??= new Float64Array(d);
        const dk = grad.dKeys[s];
        for (let i = 0; i < d; i++) {
          dq[i] += da * key[i];
          dk[i] += da * ps.q[i];
        }
      }
      const wq = this.Wq.values();
      const dwq = this.Wq.grad;
      for (let i = 0; i < d; i++) {
        for (let l = 0; l < 2 * d; l++) {
          dwq[i * 2 * d + l] += dq[i] * ps.qin[l];
          if (l < d) dh[l] += wq[i * 2 * d + l] * dq[i];
        }
      }
    }
    // Gate.
    const dgpre = dg * g * (1 - g);
    const wg = this.wg.values();
    for (let l = 0; l < d; l++) {
      this.wg.grad[l] += dgpre * h[l];
      dh[l] += dgpre * wg[l];
    }
    this.bg.grad[0] += dgpre;
    // Hidden state: h = tanh(c + Σ_j M_j e(x_{t-j}) + R·m_t); m_t is made of frozen embeddings.
    const dhpre = new Float64Array(d);
    for (let i = 0; i < d; i++) {
      dhpre[i] = dh[i] * (1 - h[i] * h[i]);
      this.c.grad[i] += dhpre[i];
    }
    if (this.config.memoryDecays.length > 0) {
      const mem = seq.memory[t];
      const cols = this.R.cols;
      const dR = this.R.grad;
      for (let i = 0; i < d; i++) {
        const di = dhpre[i];
        if (di === 0) continue;
        for (let l = 0; l < cols; l++) dR[i * cols + l] += di * mem[l];
      }
    }
    for (let j = 0; j < taps && t - j >= 0; j++) {
      const x = seq.tokens[t - j];
      for (let i = 0; i < d; i++) {
        const di = dhpre[i];
        if (di === 0) continue;
        const mRow = j * d * d + i * d;
        for (let l = 0; l < d; l++) {
          grad.eff.M[mRow + l] += di * eff.E[x * d + l];
          grad.eff.E[x * d + l] += eff.M[mRow + l] * di;
        }
      }
    }
  }

  /** Folds the copy-key gradients of one sequence into Wk (key_s = Wk·keyIn_s). */
  finishSequence(seq: SequenceState, grad: PositionGradient): void {
    const d = this.config.dim;
    const dwk = this.Wk.grad;
    grad.dKeys.forEach((dk, s) => {
      const kin = seq.keyIn[s];
      for (let i = 0; i < d; i++) for (let l = 0; l < 2 * d; l++) dwk[i * 2 * d + l] += dk[i] * kin[l];
    });
    grad.dKeys = [];
  }

  /** Chains effective-matrix gradients into the low-rank adapters: W = W0 + A·B. */
  finishGradient(grad: PositionGradient): void {
    const { dim: d, rank: r, taps } = this.config;
    const V = this.vocabSize;
    const fold = (dW: Float64Array, A: Tensor, B: Tensor, rows: number, aOff: number, bOff: number, wOff: number) => {
      const a = A.values();
      const b = B.values();
      for (let i = 0; i < rows; i++) {
        for (let l = 0; l < d; l++) {
          const w = dW[wOff + i * d + l];
          if (w === 0) continue;
          for (let k = 0; k < r; k++) {
            A.grad[aOff + i * r + k] += w * b[bOff + k * d + l];
            B.grad[bOff + k * d + l] += a[aOff + i * r + k] * w;
          }
        }
      }
    };
    fold(grad.eff.E, this.Ea, this.Eb, V, 0, 0, 0);
    fold(grad.eff.U, this.Ua, this.Ub, V, 0, 0, 0);
    for (let j = 0; j < taps; j++) fold(grad.eff.M, this.Ma, this.Mb, d, j * d * r, j * r * d, j * d * d);
  }

  /** Sum of squares of the trainable gradients, for clipping and metrics. */
  gradNorm(): number {
    let s = 0;
    for (const t of this.tensors) {
      if (!this.isTrainable(t)) continue;
      const g = t.grad;
      for (let i = 0; i < t.size; i++) s += g[i] * g[i];
    }
    return Math.sqrt(s);
  }

  /** A weights-only copy (sampler snapshot): same vocabulary, no gradients or optimiser state. */
  cloneWeights(): TinyModel {
    const m = new TinyModel(this.config, false, false);
    m.adoptState(this.vocab, this.tensors.map((t) => t.cloneWeights()), this.adamStep);
    return m;
  }

  /** Replaces vocabulary and tensors (used by cloning and loading). */
  adoptState(vocab: readonly number[], tensors: Tensor[], adamStep: number): void {
    this.vocab.length = 0;
    this.indexOf.clear();
    vocab.forEach((id, i) => {
      this.vocab.push(id);
      this.indexOf.set(id, i);
    });
    for (const t of tensors) {
      const mine = this.tensors.findIndex((x) => x.name === t.name);
      if (mine < 0) throw new Error(`unknown tensor ${t.name}`);
      const expected = this.tensors[mine];
      if (t.cols !== expected.cols || (!expected.perToken && t.rows !== expected.rows) || (expected.perToken && t.rows !== vocab.length)) {
        throw new Error(`tensor ${t.name} has shape ${t.rows}×${t.cols}, expected ${expected.perToken ? vocab.length : expected.rows}×${expected.cols}`);
      }
      this.tensors[mine] = t;
      (this as unknown as Record<string, Tensor>)[t.name] = t;
    }
    this.adamStep = adamStep;
    this.invalidate();
  }
}
