#!/usr/bin/env node
// Runs the integration suite (test/integration) inside the extension host of a real VS Code:
// the code-server npm package (VS Code 1.100.3 server, Node extension host) with Debian's Chromium
// as the workbench, driven by playwright-core. One VS Code start for the whole suite.
//
// Usage: node scripts/vscode/run-integration.mjs [--grep PATTERN]
// Env: AGENT_LAB_IT_TIMEOUT_MS (whole suite, default 300000), VSCODE_LOG=1 (workbench chatter too),
//      VSCODE_DEBUG=1 (browser console), KEEP_TMP=1 (keep user data, logs and the fixture), CHROMIUM_PATH.
// Ends with "integration: N passed, N failed" and exits non-zero when anything failed or never ran.
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { root, missingPrerequisite, startCodeServer, launchChromium, runExtensionTests } from "./harness.mjs";
import { buildSuite } from "./build-suite.mjs";
import { makeFixtureWorkspace } from "./fixture.mjs";

const { values: args } = parseArgs({ options: { grep: { type: "string" } } });
const timeoutMs = Number(process.env.AGENT_LAB_IT_TIMEOUT_MS || 300_000);
const fail = (line) => {
  console.error(`[integration] ${line}`);
  console.log("integration: 0 passed, 1 failed");
  process.exit(1);
};

const missing = missingPrerequisite();
if (missing) fail(missing);
if (!existsSync(path.join(root, "dist", "extension.js"))) fail("dist/extension.js is missing: run npm run build first");

const t0 = Date.now();
let suiteEntry;
let fixture;
try {
  suiteEntry = await buildSuite();
  fixture = makeFixtureWorkspace({ log: console.log });
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
let cs;
let browser;
let exitCode = 1;
let result;
try {
  cs = await startCodeServer({
    env: { AGENT_LAB_IT_WORKSPACE: fixture.dir, ...(args.grep ? { AGENT_LAB_IT_GREP: args.grep } : {}) },
  });
  console.log(`[integration] VS Code server up on port ${cs.port} after ${cs.startedMs} ms`);
  browser = await launchChromium();
  ({ exitCode, result } = await runExtensionTests({ cs, browser, folder: fixture.dir, devPath: root, testsPath: suiteEntry, timeoutMs }));
} catch (e) {
  console.error(`[integration] ${e instanceof Error ? e.message : e}`);
} finally {
  await browser?.close().catch(() => {});
  cs?.stop();
  if (process.env.KEEP_TMP) console.log(`[integration] kept ${cs?.tmp ?? ""} and ${fixture.dir}`);
  else fixture.remove();
}
console.log(`[integration] total ${((Date.now() - t0) / 1000).toFixed(1)} s`);
if (result) {
  console.log(`integration: ${result.passes} passed, ${result.failures} failed` + (result.pending ? `, ${result.pending} skipped` : ""));
  if (result.failures > 0 && exitCode === 0) exitCode = 1;
} else {
  console.log("integration: 0 passed, 1 failed"); // the suite never reported: count that as a failure
  if (exitCode === 0) exitCode = 1;
}
process.exit(exitCode);
