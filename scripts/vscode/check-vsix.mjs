#!/usr/bin/env node
// Installs the packaged .vsix into a fresh code-server (`--install-extension`), then
//  1. runs the installed CLI (`<extension>/dist/cli.js demo`) from a folder with no node_modules
//     above it, which proves the packaged runtime packages (tokenizer, transformers, ONNX Runtime)
//     load, and
//  2. opens the demo's workspace in VS Code with only the installed copy of Agent Lab and checks
//     that it activates by itself and registers its commands (test/integration/vsix/probe.ts).
// Usage: node scripts/vscode/check-vsix.mjs [FILE.vsix]   (default: this platform's package)
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  root,
  missingPrerequisite,
  startCodeServer,
  launchChromium,
  codeServerCli,
  runExtensionTests,
} from "./harness.mjs";
import { buildSuite, suiteOut } from "./build-suite.mjs";

const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const vsix = path.resolve(
  process.argv[2] ?? path.join(root, `${pkg.name}-${pkg.version}-${process.platform}-${process.arch}.vsix`),
);
const done = (ok, line) => {
  if (line) console[ok ? "log" : "error"](`[vsix] ${line}`);
  console.log(`vsix: ${ok ? 1 : 0} passed, ${ok ? 0 : 1} failed`);
  process.exit(ok ? 0 : 1);
};
const missing = missingPrerequisite();
if (missing) done(false, missing);
if (!existsSync(vsix)) done(false, `${path.relative(process.cwd(), vsix)} not found: run npm run package first`);

const t0 = Date.now();
const tmp = mkdtempSync(path.join(tmpdir(), "agent-lab-vsix-check-"));
const extensionsDir = path.join(tmp, "extensions");
const userDataDir = path.join(tmp, "user-data");
mkdirSync(extensionsDir);
let ok = false;
let cs;
let browser;
try {
  const out = await codeServerCli(["--install-extension", vsix], { extensionsDir, userDataDir });
  const installed = readdirSync(extensionsDir).find((d) => d.startsWith(`${pkg.publisher}.${pkg.name}-`));
  if (!installed) throw new Error(`--install-extension left no ${pkg.publisher}.${pkg.name}-* folder:\n${out}`);
  const extDir = path.join(extensionsDir, installed);
  console.log(`[vsix] installed ${installed} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // 1. The packaged CLI on its own (no repository node_modules on its resolution path).
  const workspace = path.join(tmp, "workspace");
  execFileSync(process.execPath, [path.join(extDir, "dist", "cli.js"), "demo", "--dir", workspace], {
    cwd: tmp,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const runs = readdirSync(path.join(workspace, "runs"));
  if (runs.length === 0) throw new Error("the packaged CLI's demo wrote no runs");
  console.log(`[vsix] packaged CLI ran the demo: runs ${runs.join(", ")}`);

  // 2. VS Code with the installed extension; a stand-in development extension carries the probe.
  await buildSuite();
  const probeExt = path.join(tmp, "probe-extension");
  mkdirSync(probeExt);
  writeFileSync(
    path.join(probeExt, "package.json"),
    JSON.stringify({
      name: "vsix-probe",
      publisher: "agent-lab-tests",
      version: "0.0.0",
      engines: { vscode: "^1.100.0" },
    }),
  );
  cs = await startCodeServer({ extensionsDir, env: { AGENT_LAB_VSIX_EXTENSIONS_DIR: extensionsDir } });
  browser = await launchChromium();
  const { exitCode, result } = await runExtensionTests({
    cs,
    browser,
    folder: workspace,
    devPath: probeExt,
    testsPath: path.join(suiteOut, "vsix", "probe"),
    timeoutMs: 120_000,
  });
  ok = exitCode === 0 && result?.failures === 0;
} catch (e) {
  console.error(`[vsix] ${e instanceof Error ? e.message : e}`);
} finally {
  await browser?.close().catch(() => {});
  cs?.stop();
  if (!process.env.KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
}
console.log(`[vsix] total ${((Date.now() - t0) / 1000).toFixed(1)} s`);
done(ok);
