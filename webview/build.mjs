// Bundles the webview panels for the browser: one IIFE per panel with @vscode-elements inside
// (nothing loaded from the network at run time) and the shared stylesheet. scripts/build.mjs
// calls it for dist/webview; the webview tests call it for a temporary folder.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
export const PANEL_KINDS = ["trace", "compare", "dashboard", "experiment"];

export async function buildWebviews(outdir, options = {}) {
  await build({
    entryPoints: [
      ...PANEL_KINDS.map((kind) => ({ in: join(here, kind, "main.ts"), out: kind })),
      { in: join(here, "panels.css"), out: "panels" },
    ],
    outdir,
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "chrome120",
    minify: options.minify ?? true,
    sourcemap: options.sourcemap ?? false,
    logLevel: "warning",
  });
}
