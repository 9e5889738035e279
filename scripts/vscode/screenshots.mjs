#!/usr/bin/env node
// Headless screenshots of Agent Lab in a real VS Code (code-server + Chromium), in the dark and the
// light default themes, saved as docs/screenshots/<case>-<theme>.png for the README.
// The cases live in screenshot-cases.mjs (add panels and commands there). Each case drives the UI
// like a person (activity bar, command palette, quick picks, tree rows), waits for what it claims
// to show, and only then saves its picture; a case that cannot find its content fails the run.
//
// Usage: node scripts/vscode/screenshots.mjs [--only NAME[,NAME]] [--theme dark|light] [--out DIR]
// Env: KEEP_TMP=1, CHROMIUM_PATH.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { root, missingPrerequisite, startCodeServer, launchChromium } from "./harness.mjs";
import { makeFixtureWorkspace } from "./fixture.mjs";
import { CASES } from "./screenshot-cases.mjs";
import { WorkbenchDriver } from "./workbench-driver.mjs";

const { values: args } = parseArgs({
  options: { only: { type: "string" }, theme: { type: "string" }, out: { type: "string" } },
});
const THEMES = { dark: "Default Dark Modern", light: "Default Light Modern" };
const outDir = path.resolve(args.out ?? path.join(root, "docs", "screenshots"));
const only = args.only ? new Set(args.only.split(",")) : undefined;
const themes = args.theme ? [args.theme] : Object.keys(THEMES);

const missing = missingPrerequisite();
if (missing) {
  console.error(`[screenshots] ${missing}`);
  process.exit(1);
}
mkdirSync(outDir, { recursive: true });
const t0 = Date.now();
const log = (m) => console.log(`[+${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const failures = [];
const warnings = new Set();
let saved = 0;

// The miniature experiment the experiment case shows: run once, copied into each theme's workspace.
const experimentDir = mkdtempSync(path.join(tmpdir(), "agent-lab-shots-exp-"));
for (const theme of themes) {
  // A fresh workspace per theme: cases start jobs and write runs.
  const fixture = makeFixtureWorkspace({ log });
  // A GRPO run, a prompt rerun, a report, a cookbook folder and an experiment record (TypeScript: tsx).
  execFileSync(
    process.execPath,
    ["--import", "tsx", path.join(root, "scripts", "vscode", "screenshot-extras.ts"), fixture.dir, experimentDir],
    { cwd: root, stdio: "inherit" },
  );
  const cs = await startCodeServer({
    settings: { "workbench.colorTheme": THEMES[theme], "window.commandCenter": false },
  });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(
      cs.url({
        folder: fixture.dir,
        payload: [
          ["extensionDevelopmentPath", cs.remoteUri(root)],
          ["skipWelcome", "true"],
          ["skipReleaseNotes", "true"],
        ],
      }),
    );
    const wb = new WorkbenchDriver(page, { workspace: fixture.dir });
    await wb.ready();
    log(`${theme}: workbench ready`);
    // Error toasts raised while the window and the extension start are findings, not scenery:
    // report them, then clear them so the pictures show the cases.
    await page.waitForTimeout(3000);
    for (const text of await wb.errorToasts()) {
      warnings.add(text);
      log(`WARNING error notification at startup: ${text}`);
    }
    for (const c of CASES) {
      if (only && !only.has(c.name)) continue;
      try {
        await wb.reset();
        await c.run(wb, {
          shoot: async (suffix = "") => {
            const file = path.join(outDir, `${c.name}${suffix}-${theme}.png`);
            await page.waitForTimeout(300); // let animations (quick input, notifications) settle
            await page.screenshot({ path: file });
            saved++;
            log(`saved ${path.relative(root, file)}`);
          },
        });
      } catch (e) {
        failures.push(`${c.name} (${theme}): ${e instanceof Error ? e.message.split("\n")[0] : e}`);
        // What the window showed when the case gave up: out/ (git-ignored), not the docs folder.
        const failedShot = path.join(root, "out", "screenshots-failed", `${c.name}-${theme}.png`);
        mkdirSync(path.dirname(failedShot), { recursive: true });
        await page.screenshot({ path: failedShot }).catch(() => {});
        log(`what the window showed: ${path.relative(root, failedShot)}`);
        log(`FAILED ${c.name}: ${e instanceof Error ? e.message : e}`);
      } finally {
        await wb.reset().catch(() => {});
      }
    }
  } finally {
    await browser.close().catch(() => {});
    cs.stop();
    if (!process.env.KEEP_TMP) fixture.remove();
  }
}
rmSync(experimentDir, { recursive: true, force: true });
log(`${saved} screenshots in ${path.relative(process.cwd(), outDir) || "."}`);
for (const w of warnings) console.error(`[screenshots] warning: error notification at startup: ${w}`);
for (const f of failures) console.error(`[screenshots] failed: ${f}`);
console.log(`screenshots: ${saved} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
