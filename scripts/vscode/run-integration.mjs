#!/usr/bin/env node
// Runs the integration suite (test/integration) inside the extension host of a real VS Code:
// the code-server npm package (VS Code 1.100.3 server, Node extension host) with Debian's Chromium
// as the workbench, driven by playwright-core. One VS Code start for the whole suite.
//
// Sessions in one VS Code server: the fixture workspace (test/integration/*.test.ts), an empty folder
// (test/integration/empty-workspace/*.test.ts: what a new user sees, e.g. the offline pipeline), and an
// empty folder for the second environment's first run (test/integration/empty-gsm8k/*.test.ts).
//
// Usage: node scripts/vscode/run-integration.mjs [--grep PATTERN] [--suite fixture|empty|empty-gsm8k|all] [--workspace DIR]
//        [--webview-worker fixed|as-shipped]
// --workspace DIR opens an existing folder as the fixture workspace (kept afterwards) instead of making
// one: bench/panels/run.ts --vscode runs the panel-speed tests on its 10,000-episode runs this way.
// --webview-worker: the webviews' service-worker URL, later VS Code's (fixed, the default) or VS Code
// 1.100's as shipped, which makes every new webview after the first wait about a second
// (scripts/vscode/webview-worker.mjs).
// Env: AGENT_LAB_IT_TIMEOUT_MS (each session; default 900000, a hang guard well above the empty session's
//      pipeline and its tests), VSCODE_LOG=1 (workbench chatter too),
//      VSCODE_DEBUG=1 (browser console), KEEP_TMP=1 (keep user data, logs and the fixture), CHROMIUM_PATH.
// Ends with "integration: N passed, N failed" and exits non-zero when anything failed or never ran.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { root, missingPrerequisite, startCodeServer, launchChromium, runExtensionTests } from "./harness.mjs";
import { WEBVIEW_WORKER_MODES } from "./webview-worker.mjs";
import { buildSuite } from "./build-suite.mjs";
import { makeFixtureWorkspace } from "./fixture.mjs";

const { values: args } = parseArgs({
  options: {
    grep: { type: "string" },
    suite: { type: "string", default: "all" },
    workspace: { type: "string" },
    "webview-worker": { type: "string", default: "fixed" },
  },
});
// Sessions: the fixture workspace, then empty folders, one per first run (a folder's name is its tests' folder).
const SESSIONS = ["fixture", "empty", "empty-gsm8k"];
if (![...SESSIONS, "all"].includes(args.suite)) {
  console.error(`[integration] --suite must be ${SESSIONS.join(", ")} or all, got "${args.suite}"`);
  process.exit(2);
}
if (!WEBVIEW_WORKER_MODES.includes(args["webview-worker"])) {
  console.error(
    `[integration] --webview-worker must be ${WEBVIEW_WORKER_MODES.join(" or ")}, got "${args["webview-worker"]}"`,
  );
  process.exit(2);
}
const sessions = args.suite === "all" ? SESSIONS : [args.suite];
const timeoutMs = Number(process.env.AGENT_LAB_IT_TIMEOUT_MS || 900_000);
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
// Empty folders, for the tests of a first run: test/integration/<folder name>/ runs in each (the suite
// entry picks them by the folder's name, beside AGENT_LAB_IT_EMPTY_WORKSPACE).
const emptyParent = mkdtempSync(path.join(tmpdir(), "agent-lab-it-empty-"));
const emptyDir = path.join(emptyParent, "empty-workspace");
const emptyFolder = (session) => (session === "empty" ? emptyDir : path.join(emptyParent, session));
try {
  suiteEntry = await buildSuite();
  if (args.workspace && !existsSync(args.workspace)) throw new Error(`--workspace ${args.workspace}: no such folder`);
  fixture = !sessions.includes("fixture")
    ? undefined
    : args.workspace
      ? { dir: path.resolve(args.workspace), remove: () => {} }
      : makeFixtureWorkspace({ log: console.log });
  for (const session of sessions) if (session !== "fixture") mkdirSync(emptyFolder(session));
} catch (e) {
  rmSync(emptyParent, { recursive: true, force: true });
  fail(e instanceof Error ? e.message : String(e));
}
let cs;
let browser;
let exitCode = 0;
const total = { passes: 0, failures: 0, pending: 0 };
let reported = 0;
try {
  cs = await startCodeServer({
    webviewWorker: args["webview-worker"],
    env: {
      ...(fixture ? { AGENT_LAB_IT_WORKSPACE: fixture.dir } : {}),
      AGENT_LAB_IT_EMPTY_WORKSPACE: emptyDir,
      ...(args.grep ? { AGENT_LAB_IT_GREP: args.grep } : {}),
    },
  });
  console.log(`[integration] VS Code server up on port ${cs.port} after ${cs.startedMs} ms`);
  browser = await launchChromium();
  for (const session of sessions) {
    const folder = session === "fixture" ? fixture.dir : emptyFolder(session);
    console.log(`[integration] ${session} workspace: ${folder}`);
    const { exitCode: code, result } = await runExtensionTests({
      cs,
      browser,
      folder,
      devPath: root,
      testsPath: suiteEntry,
      timeoutMs,
    });
    if (code !== 0) exitCode = code || 1;
    if (result) {
      reported++;
      total.passes += result.passes;
      total.failures += result.failures;
      total.pending += result.pending ?? 0;
    }
  }
} catch (e) {
  console.error(`[integration] ${e instanceof Error ? e.message : e}`);
  exitCode = 1;
} finally {
  await browser?.close().catch(() => {});
  cs?.stop();
  if (process.env.KEEP_TMP) console.log(`[integration] kept ${cs?.tmp ?? ""}, ${fixture?.dir ?? ""} and ${emptyDir}`);
  else {
    fixture?.remove();
    rmSync(emptyParent, { recursive: true, force: true });
  }
}
console.log(`[integration] total ${((Date.now() - t0) / 1000).toFixed(1)} s`);
if (reported === sessions.length) {
  console.log(
    `integration: ${total.passes} passed, ${total.failures} failed` +
      (total.pending ? `, ${total.pending} skipped` : ""),
  );
  if (total.failures > 0 && exitCode === 0) exitCode = 1;
} else {
  // A session that never reported counts as a failure.
  console.log(`integration: ${total.passes} passed, ${total.failures + sessions.length - reported} failed`);
  if (exitCode === 0) exitCode = 1;
}
process.exit(exitCode);
