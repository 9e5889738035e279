/**
 * Splitting one forward_backward call into requests the server accepts (spec §3.6) and merging
 * the chunk results back in order, with metrics reduced by their ":suffix".
 */
import type { Datum, ForwardBackwardOutput, TensorData } from "./wire";

/** The SDK's byte estimate of a datum: 4 bytes per text token, image bytes, tensor bytes, 8 per sparse index. */
export function estimateDatumBytes(d: Datum): number {
  let bytes = 0;
  for (const c of d.model_input.chunks) {
    bytes += c.type === "encoded_text" ? 4 * c.tokens.length : Math.floor((c.data.length * 3) / 4);
  }
  for (const t of Object.values(d.loss_fn_inputs)) bytes += tensorBytes(t);
  return bytes;
}

function tensorBytes(t: TensorData): number {
  const width = t.dtype === "int64" ? 8 : 4;
  return width * t.data.length + 8 * ((t.sparse_crow_indices?.length ?? 0) + (t.sparse_col_indices?.length ?? 0));
}

/** Consecutive chunks of at most maxDatums datums and maxBytes estimated bytes (a lone oversize datum gets its own chunk). */
export function chunkData(data: readonly Datum[], maxDatums: number, maxBytes: number): Datum[][] {
  const chunks: Datum[][] = [];
  let current: Datum[] = [];
  let bytes = 0;
  for (const d of data) {
    const b = estimateDatumBytes(d);
    if (current.length > 0 && (current.length >= maxDatums || bytes + b > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(d);
    bytes += b;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Merges chunk results: outputs concatenated in chunk order, metrics reduced per suffix. */
export function mergeForwardBackwardOutputs(
  parts: ReadonlyArray<{ output: ForwardBackwardOutput; datums: number }>,
): ForwardBackwardOutput {
  const outputs = parts.flatMap((p) => p.output.loss_fn_outputs);
  const keys = [...new Set(parts.flatMap((p) => Object.keys(p.output.metrics)))];
  const metrics: Record<string, number> = {};
  for (const key of keys) {
    const values = parts
      .filter((p) => key in p.output.metrics)
      .map((p) => ({ value: p.output.metrics[key], weight: p.datums }));
    const colon = key.lastIndexOf(":");
    const reduction = colon >= 0 ? key.slice(colon + 1) : "";
    const nums = values.map((v) => v.value);
    const weighted = (): number => {
      const total = values.reduce((a, v) => a + v.weight, 0);
      return total > 0 ? values.reduce((a, v) => a + v.value * v.weight, 0) / total : nums[0];
    };
    switch (reduction) {
      case "sum":
        metrics[key] = nums.reduce((a, b) => a + b, 0);
        break;
      case "mean":
        metrics[key] = weighted();
        break;
      case "min":
        metrics[key] = Math.min(...nums);
        break;
      case "max":
        metrics[key] = Math.max(...nums);
        break;
      case "slack":
        metrics[key] = Math.max(...nums) - weighted();
        break;
      case "hash_unordered":
        // An order-independent combination of the chunks' hashes.
        metrics[key] = nums.reduce((a, b) => a + b, 0);
        break;
      case "unique":
        metrics[key] = nums[0];
        nums.slice(1).forEach((v, i) => (metrics[`${key}_${i + 2}`] = v));
        break;
      case "":
        // No reduction suffix (the Python SDK crashes on these); keep a single chunk's value.
        if (nums.length === 1) metrics[key] = nums[0];
        break;
      default:
      // Unknown reductions are dropped, as the SDK does.
    }
  }
  return { loss_fn_output_type: parts[0]?.output.loss_fn_output_type ?? "", loss_fn_outputs: outputs, metrics };
}
