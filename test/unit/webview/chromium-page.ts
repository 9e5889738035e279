/**
 * A panel's real HTML (panelHtml: CSP with a nonce) and bundle in headless Chromium, the engine
 * VS Code's webviews run on, through playwright-core. The page is served from a fake webview
 * origin; VS Code's acquireVsCodeApi is stood in for. CSP violations and page errors are recorded.
 * Tests skip (with a reason) when Chromium is not installed.
 */
/// <reference lib="dom" />
import type { Browser, Page } from "playwright-core";
import { makeNonce, panelHtml } from "../../../src/extension/webview/webview-html";
import { webviewBundles } from "./webview-dom";
import { buildWebviews } from "../../../webview/build.mjs";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const ORIGIN = "https://webview.test";

let css: string | undefined;

async function stylesheet(): Promise<string> {
  if (css) return css;
  const dir = mkdtempSync(join(tmpdir(), "agent-lab-css-"));
  try {
    await buildWebviews(dir, { minify: false });
    css = readFileSync(join(dir, "panels.css"), "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return css;
}

export async function launch(ctx: Mocha.Context): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    console.log(`      skipped: no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);
    ctx.skip();
  }
  return launchHeadless();
}

/** Headless Chromium as the webview tests and the benches that open panel pages run it. */
export async function launchHeadless(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
}

/** A few of the colours VS Code injects into webviews, per theme kind (values from its default themes). */
const THEME_VARS: Record<string, Record<string, string>> = {
  "vscode-dark": {
    "--vscode-editor-background": "#1e1e1e",
    "--vscode-editor-foreground": "#d4d4d4",
    "--vscode-foreground": "#cccccc",
    "--vscode-descriptionForeground": "rgba(204, 204, 204, 0.7)",
    "--vscode-diffEditor-insertedTextBackground": "rgba(156, 204, 44, 0.2)",
    "--vscode-charts-red": "#f14c4c",
    "--vscode-charts-green": "#89d185",
    "--vscode-charts-blue": "#3794ff",
    "--vscode-panel-border": "rgba(128, 128, 128, 0.35)",
  },
  "vscode-light": {
    "--vscode-editor-background": "#ffffff",
    "--vscode-editor-foreground": "#000000",
    "--vscode-foreground": "#616161",
    "--vscode-descriptionForeground": "#717171",
    "--vscode-diffEditor-insertedTextBackground": "rgba(156, 204, 44, 0.25)",
    "--vscode-charts-red": "#e51400",
    "--vscode-charts-green": "#388a34",
    "--vscode-charts-blue": "#1a85ff",
    "--vscode-panel-border": "rgba(128, 128, 128, 0.35)",
  },
  "vscode-high-contrast": {
    "--vscode-editor-background": "#000000",
    "--vscode-editor-foreground": "#ffffff",
    "--vscode-foreground": "#ffffff",
    "--vscode-descriptionForeground": "rgba(255, 255, 255, 0.7)",
    "--vscode-contrastBorder": "#6fc3df",
    "--vscode-contrastActiveBorder": "#f38518",
    "--vscode-charts-red": "#f14c4c",
    "--vscode-charts-green": "#89d185",
    "--vscode-charts-blue": "#3794ff",
    "--vscode-panel-border": "#6fc3df",
  },
};

export interface PanelPage {
  page: Page;
  violations: string[];
  errors: string[];
  /** Dispatches a host message and resolves after the next two animation frames; returns ms. */
  postTimed(message: unknown): Promise<number>;
  sent(): Promise<{ type: string; [k: string]: unknown }[]>;
}

/** `initScript`: more script (a string) run before the page's own, e.g. to watch what the page calls. */
export async function openPanelPage(
  browser: Browser,
  kind: "trace" | "compare" | "dashboard",
  theme = "vscode-dark",
  initScript = "",
): Promise<PanelPage> {
  const bundles = await webviewBundles();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  if (process.env.WEBVIEW_DEBUG) page.on("console", (m) => console.log(`[${kind}:${m.type()}] ${m.text()}`));
  await page.route(`${ORIGIN}/**`, async (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === "/") {
      const html = panelHtml({
        kind,
        title: kind,
        cspSource: ORIGIN,
        script: bundles.get(kind)!,
        stylesheet: await stylesheet(),
        nonce: makeNonce(),
      }).replace("<body ", `<body class="${theme}" `);
      return route.fulfill({ contentType: "text/html", body: html });
    }
    return route.fulfill({ status: 404, body: "" });
  });
  // A string, not a function: tsx would wrap a function's inner arrows in its __name helper.
  await page.addInitScript(`
    window.__name = (f) => f;
    window.__sent = [];
    window.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + ": " + e.blockedURI));
    let state;
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__sent.push(m), setState: (s) => { state = s; }, getState: () => state });
    ${initScript}
  `);
  await page.goto(`${ORIGIN}/`);
  await page.evaluate((vars) => {
    for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(k, v);
  }, THEME_VARS[theme] ?? {});
  // Polled with evaluate (CDP, not subject to the page's CSP; waitForFunction would need eval).
  for (let i = 0; ; i++) {
    const ready = await page.evaluate(() =>
      ((window as unknown as { __sent?: { type: string }[] }).__sent ?? []).some((m) => m.type === "ready"),
    );
    if (ready) break;
    if (i > 200) throw new Error(`the ${kind} webview never said ready: ${errors.join("; ")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const violations: string[] = [];
  return {
    page,
    errors,
    violations,
    postTimed: (message) =>
      page.evaluate(
        (m) =>
          new Promise<number>((resolve) => {
            const t0 = performance.now();
            window.dispatchEvent(new MessageEvent("message", { data: m }));
            requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)));
          }),
        message,
      ),
    sent: () => page.evaluate(() => (window as unknown as { __sent: { type: string }[] }).__sent),
  };
}

export async function cspViolations(p: PanelPage): Promise<string[]> {
  return p.page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
}
