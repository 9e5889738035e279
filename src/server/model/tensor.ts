/**
 * A named Float64 matrix with its gradient and Adam moments side by side. Shapes are fixed when the
 * model is made (the vocabulary is fixed too, see tiny-model.ts), so nothing here ever grows.
 */

export type ParamGroup = "frozen" | "unembed" | "mlp" | "attn";

export class Tensor {
  readonly data: Float64Array;
  readonly grad: Float64Array;
  readonly adamM: Float64Array;
  readonly adamV: Float64Array;

  constructor(
    readonly name: string,
    readonly rows: number,
    readonly cols: number,
    readonly group: ParamGroup,
    /** False for inference-only copies (samplers): no gradient or Adam buffers, a quarter of the memory. */
    readonly trainable = true,
  ) {
    const n = rows * cols;
    const m = trainable ? n : 0;
    this.data = new Float64Array(n);
    this.grad = new Float64Array(m);
    this.adamM = new Float64Array(m);
    this.adamV = new Float64Array(m);
  }

  get size(): number {
    return this.rows * this.cols;
  }

  values(): Float64Array {
    return this.data;
  }

  zeroGrad(): void {
    this.grad.fill(0);
  }

  /** Copy of the weights only (for sampler snapshots). */
  cloneWeights(): Tensor {
    const t = new Tensor(this.name, this.rows, this.cols, this.group, false);
    t.data.set(this.data);
    return t;
  }
}
