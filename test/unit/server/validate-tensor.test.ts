/**
 * The local backend's check of one TensorData (validate.ts `tensor`, reached through forwardBackwardBody):
 * dense and sparse (CSR) forms, each refusal a 400 naming the field (mutation-testing gaps, issue 31).
 */
import { strict as assert } from "node:assert";
import { HttpError } from "../../../src/server/http-error";
import { forwardBackwardBody, LIMITS } from "../../../src/server/validate";

/** A cross_entropy call of one datum of `n` input tokens whose target_tokens is `target`. */
function body(target: Record<string, unknown>, n = 2, weights?: Record<string, unknown>) {
  return {
    model_id: "m",
    loss_fn: "cross_entropy",
    data: [
      {
        model_input: { chunks: [{ tokens: Array.from({ length: n }, (_, i) => i + 1) }] },
        loss_fn_inputs: {
          target_tokens: target,
          weights: weights ?? { data: new Array<number>(n).fill(1), dtype: "float32" },
        },
      },
    ],
  };
}

const T = "forward_backward.data[0].loss_fn_inputs.target_tokens";

function refused(b: Record<string, unknown>, message: string): void {
  assert.throws(
    () => forwardBackwardBody(b),
    (e: Error) => e instanceof HttpError && e.status === 400 && e.message === message,
  );
}

/** A [2, 3] target in CSR form (rows 0 and 1), densified. */
const sparse = (over: Record<string, unknown> = {}) => ({
  data: [5, 7, 9],
  dtype: "int64",
  shape: [2, 3],
  sparse_crow_indices: [0, 1, 3],
  sparse_col_indices: [2, 0, 1],
  ...over,
});

describe("server/validate: a TensorData's shape and sparse form", () => {
  it("reads a dense 1-D and a dense [N, K] tensor, and densifies a sparse one in row-major order", () => {
    assert.deepEqual(forwardBackwardBody(body({ data: [3, 4], dtype: "int64" })).datums[0].targets, [3, 4]);
    const wide = forwardBackwardBody(
      body({ data: [1, 2, 3, 4], dtype: "int64", shape: [2, 2] }, 2, {
        data: [1, 1, 1, 1],
        dtype: "float32",
        shape: [2, 2],
      }),
    ).datums[0];
    assert.deepEqual([wide.targets, wide.k], [[1, 2, 3, 4], 2]);
    const weights = { data: new Array<number>(6).fill(1), dtype: "float32", shape: [2, 3] };
    const d = forwardBackwardBody(body(sparse(), 2, weights)).datums[0];
    assert.deepEqual(d.targets, [0, 0, 5, 7, 9, 0]);
    assert.equal(d.k, 3);
    // An empty row is allowed (crow repeats itself).
    const emptyRow = sparse({ data: [5, 7], sparse_crow_indices: [0, 0, 2], sparse_col_indices: [0, 2] });
    assert.deepEqual(forwardBackwardBody(body(emptyRow, 2, weights)).datums[0].targets, [0, 0, 0, 5, 0, 7]);
  });

  it("reads a null shape or null sparse_crow_indices as absent (the SDK sends null for None)", () => {
    const d = forwardBackwardBody(body({ data: [3, 4], dtype: "int64", shape: null, sparse_crow_indices: null }))
      .datums[0];
    assert.deepEqual([d.targets, d.k], [[3, 4], 1]);
  });

  it("refuses a shape that is not [N] or [N, K] with non-negative integers", () => {
    for (const shape of [[], [2, 1, 1], [2.5], [-1], ["2"], "2", [2, -1], [2, 1.5]]) {
      refused(
        body({ data: [3, 4], dtype: "int64", shape }),
        `${T}.shape must be [N] or [N, K] with non-negative integers, got ${JSON.stringify(shape)}`,
      );
    }
    // 0 is a non-negative integer: it passes the shape rule and fails the row count instead.
    refused(
      body({ data: [], dtype: "int64", shape: [0] }),
      `${T} has shape [0], but model_input has 2 tokens (expected [2] or [2, K] with 1 ≤ K ≤ ${LIMITS.targetsPerPosition})`,
    );
  });

  it("refuses rows other than the input's tokens, and K outside 1 … the per-position limit", () => {
    const k = LIMITS.targetsPerPosition;
    for (const shape of [[3], [2, 0], [2, k + 1]]) {
      refused(
        body({ data: [3, 4], dtype: "int64", shape }),
        `${T} has shape ${JSON.stringify(shape)}, but model_input has 2 tokens (expected [2] or [2, K] with 1 ≤ K ≤ ${k})`,
      );
    }
    const atLimit = { data: new Array<number>(2 * k).fill(1), dtype: "int64", shape: [2, k] };
    const w = { data: new Array<number>(2 * k).fill(1), dtype: "float32", shape: [2, k] };
    assert.equal(forwardBackwardBody(body(atLimit, 2, w)).datums[0].k, k);
  });

  it("refuses a dense tensor whose value count does not fill its shape", () => {
    refused(body({ data: [1, 2, 3], dtype: "int64", shape: [2, 2] }), `${T} has 3 values for shape [2,2] (4 expected)`);
  });

  it("refuses each broken part of a sparse tensor, naming it", () => {
    refused(body(sparse({ shape: [2] })), `${T}: a sparse tensor needs a 2-D shape`);
    refused(body(sparse({ sparse_crow_indices: [0, 3] })), `${T}.sparse_crow_indices must have 3 entries (rows + 1)`);
    refused(body(sparse({ sparse_crow_indices: "0,1,3" })), `${T}.sparse_crow_indices must have 3 entries (rows + 1)`);
    refused(body(sparse({ sparse_col_indices: [2, 0] })), `${T}.sparse_col_indices must have one entry per value (3)`);
    refused(
      body(sparse({ sparse_col_indices: undefined })),
      `${T}.sparse_col_indices must have one entry per value (3)`,
    );
    for (const crow of [
      [1, 1, 3],
      [0, 1, 2],
    ]) {
      refused(
        body(sparse({ sparse_crow_indices: crow })),
        `${T}.sparse_crow_indices must start at 0 and end at the number of values`,
      );
    }
    for (const crow of [
      [0, 4, 3],
      [0, 1.5, 3],
      [0, "1", 3],
    ]) {
      refused(body(sparse({ sparse_crow_indices: crow })), `${T}.sparse_crow_indices must be non-decreasing integers`);
    }
    for (const [c, shown] of [
      [3, "3"],
      [-1, "-1"],
      [0.5, "0.5"],
      ["1", '"1"'],
    ] as const) {
      refused(
        body(sparse({ sparse_col_indices: [2, 0, c] })),
        `${T}.sparse_col_indices: ${shown} is not a column of 3`,
      );
    }
  });

  it("refuses non-numbers and non-finite values in data", () => {
    refused(body({ data: "12", dtype: "int64" }), `${T}.data must be an array of numbers`);
    refused(body({ data: [1, null], dtype: "int64" }), `${T}.data: null is not a finite number`);
    refused(body({ data: [1, Number.NaN], dtype: "int64" }), `${T}.data: null is not a finite number`);
  });
});
