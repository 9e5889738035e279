#!/usr/bin/env node
// The same integration suite under @vscode/test-electron (desktop VS Code), for contributors with
// internet access: test-electron downloads VS Code at run time, which the offline CI cannot.
//   npm install --no-save @vscode/test-electron && npm run build && node scripts/vscode/run-electron.mjs
// The suite entry is the same run() that scripts/vscode/run-integration.mjs uses.
import { root } from "./harness.mjs";
import { buildSuite } from "./build-suite.mjs";
import { makeFixtureWorkspace } from "./fixture.mjs";

let runTests;
try {
  ({ runTests } = await import("@vscode/test-electron"));
} catch {
  console.error(
    "[electron] @vscode/test-electron is not installed: npm install --no-save @vscode/test-electron (it downloads VS Code when run)",
  );
  process.exit(1);
}
const suite = await buildSuite();
const fixture = makeFixtureWorkspace({ log: console.log });
let code = 1;
try {
  await runTests({
    version: process.env.VSCODE_VERSION ?? "1.100.3",
    extensionDevelopmentPath: root,
    extensionTestsPath: suite,
    launchArgs: [fixture.dir, "--disable-extensions", "--disable-workspace-trust"],
    extensionTestsEnv: { AGENT_LAB_IT_WORKSPACE: fixture.dir },
  });
  code = 0;
} catch (e) {
  console.error(`[electron] ${e instanceof Error ? e.message : e}`);
} finally {
  fixture.remove();
}
process.exit(code);
