/**
 * Suite entry that VS Code calls inside the extension host (`--extensionTestsPath` →
 * out/integration/index). Same contract as @vscode/test-electron's: export `run()`, resolve when
 * every test passed. Loads every compiled `*.test.js` beside it (subfolders included), one mocha run.
 *
 * Filter with env AGENT_LAB_IT_GREP (a mocha --grep pattern), set by the runner's --grep.
 */
import Mocha from "mocha";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

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
  for (const f of testFiles(__dirname)) mocha.addFile(f);
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      const s = runner.stats;
      // One machine-readable line for scripts/vscode/run-integration.mjs (it arrives through the
      // workbench's log hook); the runner turns it into the "integration: N passed, N failed" line.
      console.log(`AGENT_LAB_IT_RESULT ${JSON.stringify({ passes: s?.passes ?? 0, failures, pending: s?.pending ?? 0 })}`);
      if (failures > 0) reject(new Error(`${failures} integration tests failed`));
      else resolve();
    });
  });
}
