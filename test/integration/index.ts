/**
 * Suite entry that VS Code calls inside the extension host (`--extensionTestsPath` →
 * out/integration/index). Same contract as @vscode/test-electron's: export `run()`, resolve when
 * every test passed. Loads every compiled `*.test.js` beside it (subfolders included), one mocha run:
 * in the empty folder (env AGENT_LAB_IT_EMPTY_WORKSPACE) only those under empty-workspace/, in the
 * fixture workspace all the others. Each further empty folder beside it runs the tests of the folder
 * here named as it is (empty-gsm8k/: the offline pipeline on GSM8K's world).
 *
 * Filter with env AGENT_LAB_IT_GREP (a mocha --grep pattern), set by the runner's --grep.
 */
import Mocha from "mocha";
import { readdirSync, statSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import * as vscode from "vscode";

/** Tests of a first run in an empty folder live in these folders, each run in the empty folder of its name. */
const EMPTY_SUITE_DIRS = ["empty-workspace", "empty-gsm8k"];

function testFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) return testFiles(p);
      return name.endsWith(".test.js") ? [p] : [];
    })
    .sort();
}

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: "bdd", color: false, timeout: 30_000, reporter: "spec" });
  if (process.env.AGENT_LAB_IT_GREP) mocha.grep(process.env.AGENT_LAB_IT_GREP);
  const open = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const empty = process.env.AGENT_LAB_IT_EMPTY_WORKSPACE;
  const suite =
    open !== undefined && empty !== undefined && dirname(open) === dirname(empty) ? basename(open) : undefined;
  const suiteOf = (f: string) => EMPTY_SUITE_DIRS.find((d) => f.includes(`${sep}${d}${sep}`));
  for (const f of testFiles(__dirname)) if (suiteOf(f) === suite) mocha.addFile(f);
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const s = runner.stats;
      // One machine-readable line for scripts/vscode/run-integration.mjs (it arrives through the
      // workbench's log hook); the runner turns it into the "integration: N passed, N failed" line.
      console.log(
        `AGENT_LAB_IT_RESULT ${JSON.stringify({ passes: s?.passes ?? 0, failures, pending: s?.pending ?? 0 })}`,
      );
      if (failures > 0) reject(new Error(`${failures} integration tests failed`));
      else resolve();
    });
  });
}
