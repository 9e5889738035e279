// Bundles the webview panels for the browser: one IIFE per panel with @vscode-elements inside
// (nothing loaded from the network at run time) and the shared stylesheet. scripts/build.mjs
// calls it for dist/webview; the webview tests call it for a temporary folder.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { readFileSync } from "node:fs";
import { envFoldersPlugin } from "../scripts/env-folders.mjs";

const here = dirname(fileURLToPath(import.meta.url));
/** The panels' one table (src/extension/webview/panels.json); each entry's bundle is webview/<bundle>/main.ts. */
export const PANELS = JSON.parse(readFileSync(join(here, "..", "src", "extension", "webview", "panels.json"), "utf8"));
/** The sidebar's webview views (src/extension/webview/views.json): bundles built the same way. */
export const VIEWS = JSON.parse(readFileSync(join(here, "..", "src", "extension", "webview", "views.json"), "utf8"));
const BUNDLES = [...PANELS, ...VIEWS].map(({ bundle }) => bundle);

export async function buildWebviews(outdir, options = {}) {
  await build({
    entryPoints: [
      ...BUNDLES.map((bundle) => ({ in: join(here, bundle, "main.ts"), out: bundle })),
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
    // Panels read the environments' catalog: its folders come in as static imports.
    plugins: [envFoldersPlugin()],
  });
  for (const bundle of BUNDLES) checkInlineSafe(join(outdir, `${bundle}.js`));
}

/**
 * Each bundle goes inside the page's <script> element (webview-html.ts), which escapes "</script".
 * "<!--" with "<script" after it would put the HTML parser in a state where even the real end tag
 * does not close the element, and no escape of them is safe everywhere in JavaScript (a regular
 * expression with the u flag rejects "\!"): a bundle that holds one fails the build.
 */
export function checkInlineSafe(file) {
  const text = readFileSync(file, "utf8");
  const found = /<!--|<script/i.exec(text);
  if (found)
    throw new Error(
      `${file}:${text.slice(0, found.index).split("\n").length}: holds "${found[0]}", which would break the page's inline script; write it another way (e.g. "<" + "!--")`,
    );
}
