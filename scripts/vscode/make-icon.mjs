#!/usr/bin/env node
// Renders images/icon.svg to images/icon.png (128×128, transparent corners) with the same headless
// Chromium the integration tests use, so no image library is needed. Run after editing the SVG.
import { readFileSync } from "node:fs";
import path from "node:path";
import { root, launchChromium, missingPrerequisite } from "./harness.mjs";

const missing = missingPrerequisite();
if (missing && !missing.startsWith("VS Code")) {
  console.error(`[icon] ${missing}`);
  process.exit(1);
}
const svg = readFileSync(path.join(root, "images", "icon.svg"), "utf8");
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator("svg").screenshot({ path: path.join(root, "images", "icon.png"), omitBackground: true });
} finally {
  await browser.close();
}
console.log("[icon] wrote images/icon.png");
