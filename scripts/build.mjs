// One bundler for every entry point: the CLI (a child process the extension launches) and the
// extension host glue. Both are CommonJS bundles for Node 20.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { buildWebviews } from "../webview/build.mjs";
import { envFoldersPlugin } from "./env-folders.mjs";
import { buildNative } from "./build-native.mjs";
import { NODE_BUNDLE, NODE_EXTERNAL } from "./node-bundle.mjs";

// The Python sandbox: its worker is a bundle of its own (it runs in a locked-down child process),
// and Pyodide's interpreter files are copied beside it, so dist/ works without node_modules/pyodide.
const sandbox = JSON.parse(readFileSync("src/core/steps/tasks/sandbox/bundle.json", "utf8"));

const entries = [
  { in: "src/cli/main.ts", out: "dist/cli.js", banner: "#!/usr/bin/env node" },
  { in: "src/extension/extension.ts", out: "dist/extension.js" },
  // The language server for prompt files and agent-lab.json: its own process, started by the extension.
  { in: "src/language-server/server.ts", out: "dist/language-server.js" },
  // Its client, loaded by the extension after activation (keeps vscode-languageclient out of extension.js).
  { in: "src/extension/language-client/client.ts", out: "dist/language-client.js" },
  // BM25 index build worker: the bundled CLI tokenizes the corpus on both cores with it.
  { in: "src/core/base/search/build-worker.ts", out: "dist/bm25-build-worker.js" },
  // The search's helper thread: half of each heavy query over a large (mapped) index.
  { in: "src/core/base/search/search-helper-worker.ts", out: "dist/search-helper-worker.js" },
  // Pyodide's loader goes inside the worker bundle; its interpreter files are copied below.
  {
    in: "src/core/steps/tasks/sandbox/worker.ts",
    out: `dist/${sandbox.workerBundle}`,
    external: sandbox.externals,
    bundlesPyodide: true,
  },
  // The local backend's compute worker: models and their sampling / training run there, off the HTTP thread.
  { in: "src/server/compute/worker.ts", out: "dist/local-backend-worker.js" },
  // The Compare panel's report (ablate's resamples), off the extension host's thread.
  { in: "src/core/steps/ablate/compare-worker.ts", out: "dist/compare-worker.js" },
  // The Compare panel's failure labels of large runs (every episode decoded), off the extension host's thread.
  { in: "src/core/views/failures/failures-worker.ts", out: "dist/failures-worker.js" },
  // The trace viewer's decoding: the run's tokenizer is loaded and used there, off the extension host's thread.
  { in: "src/extension/trace/trace-worker.ts", out: "dist/trace-worker.js" },
];

// Reached only when running from source: esbuild bundles the sandbox worker there, and pyodide is
// looked up in node_modules when dist/pyodide is absent. Neither ships.
const sourceOnly = ["esbuild", "pyodide"];

await Promise.all(
  entries.map((e) =>
    build({
      ...NODE_BUNDLE,
      entryPoints: [e.in],
      outfile: e.out,
      sourcemap: true,
      external: [...NODE_EXTERNAL, ...(e.bundlesPyodide ? [] : sourceOnly), ...(e.external ?? [])],
      banner: e.banner ? { js: e.banner } : undefined,
      logLevel: "warning",
      // The environments are the folders under src/core/envs/ (scripts/env-folders.mjs).
      plugins: [envFoldersPlugin()],
    }),
  ),
);

// agent-lab.json's and experiment specs' schemas (package.json's jsonValidation), their environments
// from the folders the bundles hold: the writer is bundled with the same plugin and run once
// (src/core/envs/config-schema.ts, src/core/steps/experiments/spec-schema.ts).
const schemaWriter = path.join(".cache", "build", "write-config-schema.cjs");
await build({
  ...NODE_BUNDLE,
  entryPoints: ["scripts/write-config-schema.ts"],
  outfile: schemaWriter,
  logLevel: "warning",
  plugins: [envFoldersPlugin()],
});
execFileSync(process.execPath, [schemaWriter, "."], { stdio: "inherit" });

const pyodideSource = path.dirname(createRequire(import.meta.url).resolve("pyodide/package.json"));
const pyodideOut = path.join("dist", sandbox.pyodideDir);
rmSync(pyodideOut, { recursive: true, force: true });
mkdirSync(pyodideOut, { recursive: true });
for (const f of sandbox.pyodideFiles) copyFileSync(path.join(pyodideSource, f), path.join(pyodideOut, f));

// Webview panels (trace viewer, compare, training dashboard): browser bundles.
await buildWebviews("dist/webview");

// The mmap addon for large search indexes (optional: positional reads where it cannot be built).
buildNative();
