/** Append-only typed arrays for the index builder: amortised growth without JS arrays of numbers. */

type TypedCtor<T> = { new (length: number): T };
interface Typed {
  length: number;
  set(array: ArrayLike<number>, offset?: number): void;
  [index: number]: number;
  subarray(begin?: number, end?: number): this;
}

export class Growable<T extends Typed> {
  private data: T;
  length = 0;

  constructor(
    private readonly ctor: TypedCtor<T>,
    initial = 1024,
  ) {
    this.data = new ctor(initial);
  }

  /** Room for `extra` more values; returns the backing array to write at [length, length + extra). */
  ensure(extra: number): T {
    this.reserve(extra);
    return this.data;
  }

  private reserve(extra: number): void {
    const need = this.length + extra;
    if (need <= this.data.length) return;
    let size = this.data.length;
    while (size < need) size = Math.ceil(size * 1.5) + 16;
    const next = new this.ctor(size);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }

  push(value: number): void {
    this.reserve(1);
    (this.data as unknown as number[])[this.length++] = value;
  }

  append(values: ArrayLike<number>): void {
    this.reserve(values.length);
    this.data.set(values, this.length);
    this.length += values.length;
  }

  /** The filled part (a view: valid until the next append). */
  view(): T {
    return this.data.subarray(0, this.length);
  }
}
