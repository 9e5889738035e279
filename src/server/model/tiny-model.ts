/**
 * The local backend's model: a tiny next-token model a CPU trains in seconds, with hand-written
 * exact gradients. It stands in for an LLM only so the protocol, the training loops and the offline
 * task can run end to end; its numbers say nothing about Qwen.
 *
 * Vocabulary: fixed, every token id 0 ≤ id < vocabSize (2^18 by default, more than Qwen's
 * tokenizers use). Ids are hashed into `buckets` buckets; b(x) is an id's bucket. Nothing about
 * the vocabulary depends on what requests have shown the model, so the same weights give the same
 * distribution on a fresh server, a reused one, or after a restart.
 *
 * At position t (predicting token t+1 from tokens x_0..x_t):
 *   e0(x)    = frozen base embedding, a Gaussian row seeded by (seed, x): distinct for every id
 *   e(x)     = e0(x) + Ea[b(x)]·Eb                        plus a low-rank adapter per bucket
 *   m_t      = [EMA_λ1(e0(x)) ; … ]                         decaying averages of the context so far
 *   h        = tanh(c + Σ_j (M0_j + Ma_j·Mb_j) e(x_{t-j}) + R·m_t)   j < taps (missing taps count as zero)
 *   p_vocab(v) ∝ exp((U0[b(v)] + Ua[b(v)]·Ub)·h + κ·β[v])   a bucket head plus a per-id bias (κ: BETA_SCALE)
 *   q        = Wq·[h ; e0(x_t)],  key_s = Wk·[e0(x_{s-1}) ; e0(x_s)]   for s = 0..t
 *   α        = softmax_s(q·key_s / √dim)                  attention over the context
 *   p_copy   = Σ_s α_s·[x_s = v]                          copy distribution (copies names from context)
 *   g        = σ(wg·h + bg)                               learned gate
 *   p(v)     = (1 − g)·p_vocab(v) + g·p_copy(v)
 * The vocabulary head factorises: p_vocab(v) = P(b(v))·exp(β[v]) / S_b(v) with S_b = Σ_{w∈b} exp(β[w])
 * and P a softmax over buckets, so a position costs O(buckets·dim), not O(vocabSize·dim); ids in one
 * bucket share the context-dependent part and differ by their learned bias.
 * Wq is initialised with an "induction" bias (query ≈ current token, key ≈ previous token) so the
 * copy head starts by continuing spans it has seen, which is what copying a multi-token name needs.
 *
 * The memory term m_t (averages of frozen embeddings, one per decay rate, R starting at zero) is
 * what lets the model tell apart positions whose last few tokens are identical: the opening of a
 * first reply and of a reply after search results both end in "<|im_start|>assistant\n…", and
 * only the longer past says whether a question or a paragraph about a company came just before.
 *
 * Trainable groups follow the LoRA flags: unembed = (Ua, Ub, beta), mlp = (Ea, Eb, Ma, Mb, c, R),
 * attn = (Wq, Wk, wg, bg). e0, U0 and M0 are the frozen "base model".
 */
import { UserInputError } from "./errors";
import { Rng, hashSeed, mix32 } from "./rng";
import { Tensor, type ParamGroup } from "./tensor";

export interface TinyModelConfig {
  /** Hidden size. */
  dim: number;
  /** Adapter rank (the LoRA rank a client asked for, capped at MAX_RANK). */
  rank: number;
  /** How many trailing tokens feed the hidden state. */
  taps: number;
  /** Decay rates of the context memory m_t (one average of d values per rate; empty = none). */
  memoryDecays: number[];
  seed: number;
  trainUnembed: boolean;
  trainMlp: boolean;
  trainAttn: boolean;
  /** Token ids are 0 ≤ id < vocabSize. */
  vocabSize: number;
  /** Hash buckets of the vocabulary head and the input adapter. */
  buckets: number;
}

/** Covers every id of the Qwen3 / Qwen3.5 tokenizers. */
export const VOCAB_SIZE = 1 << 18;

export const DEFAULT_MODEL_CONFIG: TinyModelConfig = {
  dim: 32,
  rank: 8,
  taps: 3,
  memoryDecays: [0.8, 0.97],
  seed: 0,
  trainUnembed: true,
  trainMlp: true,
  trainAttn: true,
  vocabSize: VOCAB_SIZE,
  buckets: 1024,
};
export const MAX_RANK = 64;
/**
 * β is stored divided by this: an Adam step moves a weight by about the learning rate, and a
 * token's bias has to climb by log(ids per bucket) ≈ 4 before the head can prefer it within its
 * bucket, so unscaled it would take hundreds of steps at the learning rates the recipes use.
 */
const BETA_SCALE = 8;

/** Which bucket each id falls in, and the ids of each bucket in ascending order (CSR). Shared by all models. */
interface BucketTable {
  of: Uint32Array;
  start: Uint32Array;
  ids: Uint32Array;
}
const bucketTables = new Map<string, BucketTable>();

function bucketTable(vocabSize: number, buckets: number): BucketTable {
  const key = `${vocabSize}/${buckets}`;
  let table = bucketTables.get(key);
  if (table) return table;
  const of = new Uint32Array(vocabSize);
  const start = new Uint32Array(buckets + 1);
  for (let id = 0; id < vocabSize; id++) {
    of[id] = mix32(id ^ 0x5bd1e995) % buckets;
    start[of[id] + 1]++;
  }
  for (let b = 0; b < buckets; b++) start[b + 1] += start[b];
  const fill = start.slice(0, buckets);
  const ids = new Uint32Array(vocabSize);
  for (let id = 0; id < vocabSize; id++) ids[fill[of[id]]++] = id;
  table = { of, start, ids };
  bucketTables.set(key, table);
  return table;
}

/** Per-weights view of the effective matrices and the vocabulary head's normalisers. */
interface Effective {
  /** B×d: U0 + Ua·Ub. */
  U: Float64Array;
  /** taps×d×d: M0_j + Ma_j·Mb_j. */
  M: Float64Array;
  /** B: log S_b. */
  logS: Float64Array;
  /** V: exp(β[v] − max β in v's bucket), and B: their sums per bucket. */
  expRel: Float64Array;
  sumRel: Float64Array;
  /** B: the id with the largest β in each bucket (lowest id on ties), for greedy decoding. */
  best: Uint32Array;
}

/** One sequence being read or generated: token ids plus what each position's later use needs. */
export class SequenceState {
  readonly tokens: number[] = [];
  /** Frozen and effective embeddings per position. */
  readonly e0: Float64Array[] = [];
  readonly emb: Float64Array[] = [];
  readonly keyIn: Float64Array[] = [];
  readonly keys: Float64Array[] = [];
  /** Per position, the context memory m_t (see the header). */
  readonly memory: Float64Array[] = [];
}

/** Everything the forward pass at one position computed that the backward pass needs. */
export interface PositionState {
  t: number;
  h: Float64Array;
  qin: Float64Array;
  q: Float64Array;
  /** Softmax over buckets. */
  pB: Float64Array;
  alpha: Float64Array;
  g: number;
}

export interface PositionGradient {
  /** B×d gradients of the effective input embedding and bucket head, taps×d×d of M. */
  E: Float64Array;
  U: Float64Array;
  M: Float64Array;
  /** B: Σ over positions of S·P(b)/sumRel_b, the dense part of β's gradient (see backwardPosition). */
  betaByBucket: Float64Array;
  dKeys: Float64Array[];
}

export class TinyModel {
  readonly config: TinyModelConfig;
  readonly tensors: Tensor[] = [];
  /** Number of optimiser steps taken (Adam's t). */
  adamStep = 0;
  private effCache: Effective | undefined;
  private readonly table: BucketTable;

  readonly Ea: Tensor;
  readonly Eb: Tensor;
  readonly U0: Tensor;
  readonly Ua: Tensor;
  readonly Ub: Tensor;
  readonly beta: Tensor;
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
  constructor(
    config: Partial<TinyModelConfig> = {},
    init = true,
    readonly trainable = true,
  ) {
    const cfg = { ...DEFAULT_MODEL_CONFIG, ...config };
    cfg.rank = Math.max(1, Math.min(MAX_RANK, Math.floor(cfg.rank)));
    this.config = cfg;
    this.table = bucketTable(cfg.vocabSize, cfg.buckets);
    const { dim: d, rank: r, taps, buckets: B, vocabSize: V } = cfg;
    const add = (name: string, rows: number, cols: number, group: ParamGroup) => {
      const t = new Tensor(name, rows, cols, group, trainable);
      this.tensors.push(t);
      return t;
    };
    this.Ea = add("Ea", B, r, "mlp");
    this.Eb = add("Eb", r, d, "mlp");
    this.U0 = add("U0", B, d, "frozen");
    this.Ua = add("Ua", B, r, "unembed");
    this.Ub = add("Ub", r, d, "unembed");
    this.beta = add("beta", V, 1, "unembed");
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
    fill(this.U0, 1 / Math.sqrt(d));
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
    return this.config.vocabSize;
  }

  bucketOf(tokenId: number): number {
    return this.table.of[tokenId];
  }

  /** Refuses ids outside the fixed vocabulary (a request error, not a crash). */
  checkToken(tokenId: number, what = "token id"): void {
    if (!Number.isInteger(tokenId) || tokenId < 0 || tokenId >= this.config.vocabSize) {
      throw new UserInputError(
        `${what} ${tokenId} is outside the local model's vocabulary (0 ≤ id < ${this.config.vocabSize})`,
      );
    }
  }

  /** The frozen base embedding of a token id: a Gaussian row seeded by (seed, id). */
  frozenEmbedding(tokenId: number): Float64Array {
    const out = new Float64Array(this.config.dim);
    const rng = new Rng(hashSeed(this.config.seed, "E0", tokenId));
    for (let i = 0; i < out.length; i++) out[i] = rng.normal();
    return out;
  }

  /** Call after changing weights in place (optimiser step, load). */
  invalidate(): void {
    this.effCache = undefined;
  }

  isTrainable(t: Tensor): boolean {
    const c = this.config;
    return (
      (t.group === "unembed" && c.trainUnembed) ||
      (t.group === "mlp" && c.trainMlp) ||
      (t.group === "attn" && c.trainAttn)
    );
  }

  zeroGrad(): void {
    for (const t of this.tensors) t.zeroGrad();
  }

  /** The effective matrices and normalisers, cached until the weights change. */
  effective(): Effective {
    if (this.effCache) return this.effCache;
    const { dim: d, rank: r, taps, buckets: B } = this.config;
    const lowRank = (
      base: Float64Array,
      a: Float64Array,
      b: Float64Array,
      rows: number,
      aOff: number,
      bOff: number,
      outOff: number,
      out: Float64Array,
    ) => {
      for (let i = 0; i < rows; i++) {
        for (let l = 0; l < d; l++) {
          let s = base[outOff + i * d + l];
          for (let k = 0; k < r; k++) s += a[aOff + i * r + k] * b[bOff + k * d + l];
          out[outOff + i * d + l] = s;
        }
      }
    };
    const U = new Float64Array(B * d);
    lowRank(this.U0.values(), this.Ua.values(), this.Ub.values(), B, 0, 0, 0, U);
    const M = new Float64Array(taps * d * d);
    for (let j = 0; j < taps; j++)
      lowRank(this.M0.values(), this.Ma.values(), this.Mb.values(), d, j * d * r, j * r * d, j * d * d, M);
    const beta = this.beta.values();
    const { start, ids } = this.table;
    const expRel = new Float64Array(this.config.vocabSize);
    const sumRel = new Float64Array(B);
    const logS = new Float64Array(B);
    const best = new Uint32Array(B);
    for (let b = 0; b < B; b++) {
      let max = -Infinity;
      let arg = 0;
      for (let j = start[b]; j < start[b + 1]; j++) {
        const id = ids[j];
        if (BETA_SCALE * beta[id] > max) {
          max = BETA_SCALE * beta[id];
          arg = id;
        }
      }
      let sum = 0;
      for (let j = start[b]; j < start[b + 1]; j++) {
        const e = Math.exp(BETA_SCALE * beta[ids[j]] - max);
        expRel[ids[j]] = e;
        sum += e;
      }
      sumRel[b] = sum;
      logS[b] = start[b + 1] > start[b] ? max + Math.log(sum) : -Infinity;
      best[b] = arg;
    }
    this.effCache = { U, M, logS, expRel, sumRel, best };
    return this.effCache;
  }

  /** Appends a token id to a sequence, computing its embeddings, copy key and memory. */
  appendToken(seq: SequenceState, tokenId: number): void {
    const { dim: d, rank: r } = this.config;
    const e0 = this.frozenEmbedding(tokenId);
    const emb = new Float64Array(e0);
    const ea = this.Ea.values();
    const eb = this.Eb.values();
    const row = this.bucketOf(tokenId) * r;
    for (let k = 0; k < r; k++) {
      const a = ea[row + k];
      if (a === 0) continue;
      for (let l = 0; l < d; l++) emb[l] += a * eb[k * d + l];
    }
    const s = seq.tokens.length;
    const kin = new Float64Array(2 * d);
    if (s > 0) kin.set(seq.e0[s - 1], 0);
    kin.set(e0, d);
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
    decays.forEach((lambda, k) => {
      for (let i = 0; i < d; i++) mem[k * d + i] = (prev ? lambda * prev[k * d + i] : 0) + (1 - lambda) * e0[i];
    });
    seq.tokens.push(tokenId);
    seq.e0.push(e0);
    seq.emb.push(emb);
    seq.keyIn.push(kin);
    seq.keys.push(key);
    seq.memory.push(mem);
  }

  /** Forward pass at position t of a sequence (needs tokens 0..t). */
  position(seq: SequenceState, t: number): PositionState {
    const { dim: d, taps, buckets: B } = this.config;
    const eff = this.effective();
    const hpre = new Float64Array(d);
    hpre.set(this.c.values());
    for (let j = 0; j < taps && t - j >= 0; j++) {
      const e = seq.emb[t - j];
      for (let i = 0; i < d; i++) {
        let acc = 0;
        for (let l = 0; l < d; l++) acc += eff.M[j * d * d + i * d + l] * e[l];
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
    // Bucket head: P(b) = softmax_b(U_b·h + log S_b).
    const U = eff.U;
    const logS = eff.logS;
    const pB = new Float64Array(B);
    let zmax = -Infinity;
    for (let b = 0, row = 0; b < B; b++, row += d) {
      let z = logS[b];
      for (let l = 0; l < d; l++) z += U[row + l] * h[l];
      pB[b] = z;
      if (z > zmax) zmax = z;
    }
    let zsum = 0;
    for (let b = 0; b < B; b++) {
      pB[b] = Math.exp(pB[b] - zmax);
      zsum += pB[b];
    }
    for (let b = 0; b < B; b++) pB[b] /= zsum;
    // Copy head.
    const qin = new Float64Array(2 * d);
    qin.set(h, 0);
    qin.set(seq.e0[t], d);
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
    return { t, h, qin, q, pB, alpha, g };
  }

  /** p_vocab(y) for a token id. */
  private vocabProb(ps: PositionState, y: number): number {
    const eff = this.effective();
    const b = this.table.of[y];
    return (ps.pB[b] * eff.expRel[y]) / eff.sumRel[b];
  }

  /** Copy probability of token id y (summed in position order). */
  private copyProb(seq: SequenceState, ps: PositionState, y: number): number {
    let pc = 0;
    for (let s = 0; s <= ps.t; s++) if (seq.tokens[s] === y) pc += ps.alpha[s];
    return pc;
  }

  /** log p(y) at a position, for a token id y. */
  logProb(seq: SequenceState, ps: PositionState, y: number): number {
    return Math.log((1 - ps.g) * this.vocabProb(ps, y) + ps.g * this.copyProb(seq, ps, y));
  }

  /** The whole next-token distribution over every id (for truncated or tempered sampling and top-k prompt logprobs). */
  fullDistribution(seq: SequenceState, ps: PositionState): Float64Array {
    const eff = this.effective();
    const { start, ids } = this.table;
    const p = new Float64Array(this.config.vocabSize);
    for (let b = 0; b < this.config.buckets; b++) {
      const factor = ((1 - ps.g) * ps.pB[b]) / eff.sumRel[b];
      for (let j = start[b]; j < start[b + 1]; j++) p[ids[j]] = factor * eff.expRel[ids[j]];
    }
    for (let s = 0; s <= ps.t; s++) p[seq.tokens[s]] += ps.g * ps.alpha[s];
    return p;
  }

  /**
   * The most likely next id (the lowest id on ties), without building the full distribution: the
   * winner is either the vocabulary head's best id or an id in the context.
   */
  greedy(seq: SequenceState, ps: PositionState): number {
    const eff = this.effective();
    let bestId = -1;
    let bestP = -1;
    const consider = (id: number, p: number) => {
      if (p > bestP || (p === bestP && id < bestId)) {
        bestP = p;
        bestId = id;
      }
    };
    for (let b = 0; b < this.config.buckets; b++) {
      const id = eff.best[b];
      consider(id, ((1 - ps.g) * ps.pB[b] * eff.expRel[id]) / eff.sumRel[b]);
    }
    const copy = new Map<number, number>();
    for (let s = 0; s <= ps.t; s++) copy.set(seq.tokens[s], (copy.get(seq.tokens[s]) ?? 0) + ps.alpha[s]);
    bestP = (1 - ps.g) * this.vocabProb(ps, bestId) + ps.g * (copy.get(bestId) ?? 0);
    for (const [id, pc] of copy) consider(id, (1 - ps.g) * this.vocabProb(ps, id) + ps.g * pc);
    return bestId;
  }

  /** Draws the next id from p at temperature 1 without truncation, exactly, in O(buckets + context). */
  drawExact(seq: SequenceState, ps: PositionState, rng: Rng): number {
    if (rng.next() < ps.g) {
      let u = rng.next();
      for (let s = 0; s <= ps.t; s++) {
        u -= ps.alpha[s];
        if (u <= 0) return seq.tokens[s];
      }
      return seq.tokens[ps.t];
    }
    let u = rng.next();
    let b = this.config.buckets - 1;
    for (let i = 0; i < this.config.buckets; i++) {
      u -= ps.pB[i];
      if (u <= 0) {
        b = i;
        break;
      }
    }
    const eff = this.effective();
    const { start, ids } = this.table;
    let w = rng.next() * eff.sumRel[b];
    for (let j = start[b]; j < start[b + 1]; j++) {
      w -= eff.expRel[ids[j]];
      if (w <= 0) return ids[j];
    }
    return ids[start[b + 1] - 1];
  }

  /** Fresh gradient buffers for the effective matrices of one forward_backward call. */
  newGradient(): PositionGradient {
    const { dim: d, taps, buckets: B } = this.config;
    return {
      E: new Float64Array(B * d),
      U: new Float64Array(B * d),
      M: new Float64Array(taps * d * d),
      betaByBucket: new Float64Array(B),
      dKeys: [],
    };
  }

  /**
   * Back-propagates dL/dlog p(y) for the candidate ids `ys` at one position. Gradients of directly
   * used tensors go to their .grad; those of effective matrices to `grad` (folded into the adapters
   * by finishGradient) and those of the copy keys to `grad.dKeys` (by finishSequence).
   *
   * With coef_y = dL/dlog p(y)·(1 − g)·p_vocab(y)/p(y) and S = Σ_y coef_y:
   *   dL/d(U_b·h) = Σ_y coef_y·[b = b(y)] − S·P(b)      dL/dβ[w] = coef_w − S·p_vocab(w)
   * The dense term of β is the same bucket factor times exp(β[w]) for every w of a bucket, so it is
   * summed per bucket here and spread over the ids once per call.
   */
  backwardPosition(seq: SequenceState, ps: PositionState, ys: number[], dlps: number[], grad: PositionGradient): void {
    const { dim: d, taps, buckets: B } = this.config;
    const eff = this.effective();
    const { t, h, pB, alpha, g } = ps;
    let dg = 0;
    let S = 0;
    const dz = new Float64Array(B);
    const dAlphaByToken = new Map<number, number>();
    const dBeta = this.beta.grad;
    for (let k = 0; k < ys.length; k++) {
      const y = ys[k];
      if (dlps[k] === 0) continue;
      const pc = this.copyProb(seq, ps, y);
      const pv = this.vocabProb(ps, y);
      const P = (1 - g) * pv + g * pc;
      const gP = dlps[k] / P;
      dg += gP * (pc - pv);
      const coef = gP * (1 - g) * pv;
      dz[this.table.of[y]] += coef;
      if (this.trainable) dBeta[y] += BETA_SCALE * coef;
      S += coef;
      dAlphaByToken.set(y, (dAlphaByToken.get(y) ?? 0) + gP * g);
    }
    for (let b = 0; b < B; b++) {
      dz[b] -= pB[b] * S;
      grad.betaByBucket[b] += (BETA_SCALE * S * pB[b]) / eff.sumRel[b];
    }
    const dh = new Float64Array(d);
    const U = eff.U;
    const dU = grad.U;
    for (let b = 0, row = 0; b < B; b++, row += d) {
      const z = dz[b];
      if (z === 0) continue;
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
      const e = seq.emb[t - j];
      const eRow = this.table.of[seq.tokens[t - j]] * d;
      for (let i = 0; i < d; i++) {
        const di = dhpre[i];
        if (di === 0) continue;
        const mRow = j * d * d + i * d;
        for (let l = 0; l < d; l++) {
          grad.M[mRow + l] += di * e[l];
          grad.E[eRow + l] += eff.M[mRow + l] * di;
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

  /** Chains effective-matrix gradients into the low-rank adapters (W = W0 + A·B) and spreads β's dense term. */
  finishGradient(grad: PositionGradient): void {
    const { dim: d, rank: r, taps, buckets: B } = this.config;
    const fold = (dW: Float64Array, A: Tensor, Bt: Tensor, rows: number, aOff: number, bOff: number, wOff: number) => {
      const a = A.values();
      const b = Bt.values();
      for (let i = 0; i < rows; i++) {
        for (let l = 0; l < d; l++) {
          const w = dW[wOff + i * d + l];
          if (w === 0) continue;
          for (let k = 0; k < r; k++) {
            A.grad[aOff + i * r + k] += w * b[bOff + k * d + l];
            Bt.grad[bOff + k * d + l] += a[aOff + i * r + k] * w;
          }
        }
      }
    };
    fold(grad.E, this.Ea, this.Eb, B, 0, 0, 0);
    fold(grad.U, this.Ua, this.Ub, B, 0, 0, 0);
    for (let j = 0; j < taps; j++) fold(grad.M, this.Ma, this.Mb, d, j * d * r, j * r * d, j * d * d);
    const eff = this.effective();
    const dBeta = this.beta.grad;
    const of = this.table.of;
    for (let v = 0; v < this.config.vocabSize; v++) {
      const f = grad.betaByBucket[of[v]];
      if (f !== 0) dBeta[v] -= f * eff.expRel[v];
    }
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

  /** A weights-only copy (sampler snapshot): no gradients or optimiser state. */
  cloneWeights(): TinyModel {
    const m = new TinyModel(this.config, false, false);
    m.adoptState(
      this.tensors.map((t) => t.cloneWeights()),
      this.adamStep,
    );
    return m;
  }

  /** Replaces the tensors (used by cloning and loading). */
  adoptState(tensors: Tensor[], adamStep: number): void {
    for (const t of tensors) {
      const mine = this.tensors.findIndex((x) => x.name === t.name);
      if (mine < 0) throw new Error(`unknown tensor ${t.name}`);
      const expected = this.tensors[mine];
      if (t.cols !== expected.cols || t.rows !== expected.rows) {
        throw new Error(`tensor ${t.name} has shape ${t.rows}×${t.cols}, expected ${expected.rows}×${expected.cols}`);
      }
      this.tensors[mine] = t;
      (this as unknown as Record<string, Tensor>)[t.name] = t;
    }
    this.adamStep = adamStep;
    this.invalidate();
  }
}
