/**
 * A named Float64 matrix with its gradient and Adam moments side by side. Per-token tensors grow a
 * row whenever the model's vocabulary grows; the moments and gradient grow with it (new rows start
 * at zero, as if the optimiser had never touched them).
 */

export type ParamGroup = "frozen" | "unembed" | "mlp" | "attn";

export class Tensor {
  data: Float64Array;
  grad: Float64Array;
  adamM: Float64Array;
  adamV: Float64Array;
  private capacityRows: number;

  constructor(
    readonly name: string,
    public rows: number,
    readonly cols: number,
    readonly group: ParamGroup,
    /** True for tensors with one row per vocabulary entry. */
    readonly perToken: boolean,
    /** False for inference-only copies (samplers): no gradient or Adam buffers, a quarter of the memory. */
    readonly trainable = true,
  ) {
    this.capacityRows = Math.max(rows, perToken ? 64 : rows);
    const n = this.capacityRows * cols;
    const m = trainable ? n : 0;
    this.data = new Float64Array(n);
    this.grad = new Float64Array(m);
    this.adamM = new Float64Array(m);
    this.adamV = new Float64Array(m);
  }

  get size(): number {
    return this.rows * this.cols;
  }

  /** Live view of the used part (the buffers may be larger to amortise growth). */
  values(): Float64Array {
    return this.data.subarray(0, this.size);
  }

  /** Appends a row (per-token tensors only); `init` fills it, zero otherwise. */
  addRow(init?: (out: Float64Array) => void): void {
    if (this.rows === this.capacityRows) {
      this.capacityRows *= 2;
      const grow = (a: Float64Array) => {
        const b = new Float64Array(this.capacityRows * this.cols);
        b.set(a);
        return b;
      };
      this.data = grow(this.data);
      if (this.trainable) {
        this.grad = grow(this.grad);
        this.adamM = grow(this.adamM);
        this.adamV = grow(this.adamV);
      }
    }
    if (init) init(this.data.subarray(this.rows * this.cols, (this.rows + 1) * this.cols));
    this.rows++;
  }

  zeroGrad(): void {
    this.grad.fill(0);
  }

  /** Copy of the weights only (for sampler snapshots). */
  cloneWeights(): Tensor {
    const t = new Tensor(this.name, this.rows, this.cols, this.group, this.perToken, false);
    t.data.set(this.values());
    return t;
  }
}
