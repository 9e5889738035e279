/**
 * The check both parity tests make: every interval `agent-lab ablate` prints (each run's two
 * metrics with their intervals, each paired Δ) is printed the same in the Compare panel's table,
 * the report rendered by the real webview bundle.
 */
import { strict as assert } from "node:assert";
import type { AblationReport } from "../../../src/core/steps/ablate/report-types";
import type { CompareSetup } from "../../../src/core/steps/ablate/compare-setup";
import { openWebview } from "../webview/webview-dom";

type View = { report: AblationReport; setup: CompareSetup };

/**
 * Asserts the panel prints the CLI's digits for runs `names` (the baseline first); returns how many
 * values it checked. `table`: the table before its intervals, posted to the same page first: its
 * means and Δ are the CLI's, each interval it came with too, the others shown as pending ("[…]").
 */
export async function assertPanelPrintsCli(
  cliStdout: string,
  view: View,
  names: readonly string[],
  table?: View,
): Promise<number> {
  const t = await openWebview("compare");
  try {
    const intervals = /[+−]?\d\.\d{3} \[[+−]?\d\.\d{3}, [+−]?\d\.\d{3}\]/g;
    const rowsNow = () => Array.from(t.document.querySelectorAll("#ablation-table tbody tr"));
    const cliLine = (name: string) => cliStdout.split("\n").find((l) => l.startsWith(`${name} `))!;
    if (table) {
      t.post({ type: "compare/report", ...table, intervalsPending: true });
      await t.settle();
      const rows = rowsNow();
      // An interval the table came with (remembered by the runs' Compare caches) is shown; the rest pend.
      const shown = (text: string, ci: { lo: number }) =>
        Number.isNaN(ci.lo) ? text.replace(/ \[.*\]$/, " […]") : text;
      for (const [i, name] of names.entries()) {
        const [primaryMean, primaryCi, binaryMean, binaryCi] = cliLine(name)
          .trim()
          .split(/\s{2,}/)
          .slice(1, 5);
        const run: AblationReport["runs"][number] = table.report.runs[i];
        const cells = Array.from(rows[i].querySelectorAll("td")).map((td) => td.textContent!);
        assert.equal(cells[1], shown(`${primaryMean} ${primaryCi}`, run.primary.ci), `${name}: the primary mean`);
        assert.equal(cells[2], shown(`${binaryMean} ${binaryCi}`, run.binary.ci), `${name}: the binary mean`);
        if (i === 0) continue;
        const c: AblationReport["comparisons"][number] = table.report.comparisons[i - 1];
        const [dPrimary, dBinary] = cliStdout
          .split("\n")
          .filter((l) => l.startsWith(`${name} `))[1]
          .match(intervals)!;
        assert.equal(rows[i].querySelector(".delta-f1")!.textContent, shown(dPrimary, c.primary.ci), `${name}: Δ`);
        assert.equal(rows[i].querySelector(".delta-em")!.textContent, shown(dBinary, c.binary.ci), `${name}: Δ`);
      }
      assert.match(t.document.getElementById("method")!.textContent!, /computing 10,000 resamples/);
    }
    t.post({ type: "compare/report", ...view });
    await t.settle();
    const rows = rowsNow();
    const cells = (i: number) => Array.from(rows[i].querySelectorAll("td")).map((td) => td.textContent!);
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
