/**
 * The check both parity tests make: every interval `agent-lab ablate` prints (each run's two
 * metrics with their intervals, each paired Δ) is printed the same in the Compare panel's table,
 * the report rendered by the real webview bundle.
 */
import { strict as assert } from "node:assert";
import type { AblationReport } from "../../../src/core/steps/ablate/report-types";
import type { CompareSetup } from "../../../src/core/steps/ablate/compare-setup";
import { openWebview } from "../webview/webview-dom";

/** Asserts the panel prints the CLI's digits for runs `names` (the baseline first); returns how many values it checked. */
export async function assertPanelPrintsCli(
  cliStdout: string,
  view: { report: AblationReport; setup: CompareSetup },
  names: readonly string[],
): Promise<number> {
  const t = await openWebview("compare");
  try {
    t.post({ type: "compare/report", ...view });
    await t.settle();
    const rows = Array.from(t.document.querySelectorAll("#ablation-table tbody tr"));
    const cells = (i: number) => Array.from(rows[i].querySelectorAll("td")).map((td) => td.textContent!);
    const intervals = /[+−]?\d\.\d{3} \[[+−]?\d\.\d{3}, [+−]?\d\.\d{3}\]/g;
    let checked = 0;
    for (const [i, name] of names.entries()) {
      const line = cliStdout.split("\n").find((l) => l.startsWith(`${name} `))!;
      const [primaryMean, primaryCi, binaryMean, binaryCi] = line
        .trim()
        .split(/\s{2,}/)
        .slice(1, 5);
      assert.equal(cells(i)[1], `${primaryMean} ${primaryCi}`, `${name}: the primary metric`);
      assert.equal(cells(i)[2], `${binaryMean} ${binaryCi}`, `${name}: the binary metric`);
      checked += 2;
      if (i === 0) continue;
      const paired = cliStdout.split("\n").filter((l) => l.startsWith(`${name} `))[1];
      const [dPrimary, dBinary] = paired.match(intervals)!;
      assert.equal(rows[i].querySelector(".delta-f1")!.textContent, dPrimary, `${name}: Δ of the primary metric`);
      assert.equal(rows[i].querySelector(".delta-em")!.textContent, dBinary, `${name}: Δ of the binary metric`);
      assert.match(dPrimary, /^[+−]/, "signed");
      checked += 2;
    }
    assert.match(t.document.getElementById("method")!.textContent!, /10,000 resamples, seed 0/);
    assert.match(cliStdout, /10,000 resamples, seed 0/);
    return checked;
  } finally {
    await t.close();
  }
}
