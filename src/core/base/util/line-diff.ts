/**
 * A line diff (longest common subsequence), enough for two system prompts of a few hundred lines:
 * O(n·m) time and memory, refused above MAX_CELLS so a stray huge file cannot stall a view.
 */
export interface DiffLine {
  op: "same" | "added" | "removed";
  text: string;
}

const MAX_CELLS = 4_000_000;

export function lineDiff(a: string, b: string): DiffLine[] {
  const x = a.split(/\r?\n/);
  const y = b.split(/\r?\n/);
  if (x.length * y.length > MAX_CELLS) {
    return [
      ...x.map((text): DiffLine => ({ op: "removed", text })),
      ...y.map((text): DiffLine => ({ op: "added", text })),
    ];
  }
  const n = x.length;
  const m = y.length;
  // lcs[i][j]: length of the LCS of x[i..] and y[j..], row-major in one array.
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] =
        x[i] === y[j]
          ? lcs[(i + 1) * (m + 1) + j + 1] + 1
          : Math.max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push({ op: "same", text: x[i++] });
      j++;
    } else if (lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1]) out.push({ op: "removed", text: x[i++] });
    else out.push({ op: "added", text: y[j++] });
  }
  while (i < n) out.push({ op: "removed", text: x[i++] });
  while (j < m) out.push({ op: "added", text: y[j++] });
  return out;
}
