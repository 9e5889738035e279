// Compiles the integration suite (test/integration/**/*.ts) to out/integration/*.js: each file is
// bundled on its own (it may import src/core helpers) with vscode and mocha left external, because
// the extension host provides 'vscode' and mocha must be the single copy in node_modules.
import { build } from "esbuild";
import { readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { root } from "./harness.mjs";
import { envFoldersPlugin } from "../env-folders.mjs";
import { NODE_BUNDLE } from "../node-bundle.mjs";

export const suiteSrc = path.join(root, "test", "integration");
export const suiteOut = path.join(root, "out", "integration");

function tsFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [p] : [];
  });
}

export async function buildSuite() {
  rmSync(suiteOut, { recursive: true, force: true });
  await build({
    ...NODE_BUNDLE,
    entryPoints: tsFiles(suiteSrc),
    outdir: suiteOut,
    outbase: suiteSrc,
    sourcemap: "inline",
    external: ["vscode", "mocha", "playwright-core"],
    logLevel: "warning",
    plugins: [envFoldersPlugin()],
  });
  return path.join(suiteOut, "index");
}

if (import.meta.url === `file://${process.argv[1]}`) await buildSuite();
