// One bundler for every entry point: the CLI (a child process the extension launches) and the
// extension host glue. Both are CommonJS bundles for Node 20.
import { build } from "esbuild";
import { buildWebviews } from "../webview/build.mjs";

const entries = [
  { in: "src/cli/main.ts", out: "dist/cli.js", banner: "#!/usr/bin/env node" },
  { in: "src/extension/extension.ts", out: "dist/extension.js" },
  // The language server for prompt files and agent-lab.json: its own process, started by the extension.
  { in: "src/language-server/server.ts", out: "dist/language-server.js" },
  // Its client, loaded by the extension after activation (keeps vscode-languageclient out of extension.js).
  { in: "src/language-server/client.ts", out: "dist/language-client.js" },
  // BM25 index build worker: the bundled CLI tokenizes the corpus on both cores with it.
  { in: "src/core/search/build-worker.ts", out: "dist/bm25-build-worker.js" },
  // The local backend's compute worker: models and their sampling / training run there, off the HTTP thread.
  { in: "src/server/compute/worker.ts", out: "dist/local-backend-worker.js" },
];

// Packages with native code or large model runtimes stay outside the bundle and load from node_modules.
const external = ["vscode", "@huggingface/transformers", "onnxruntime-node", "sharp"];

await Promise.all(
  entries.map((e) =>
    build({
      entryPoints: [e.in],
      outfile: e.out,
      bundle: true,
      platform: "node",
      target: "node20",
      format: "cjs",
      sourcemap: true,
      external,
      banner: e.banner ? { js: e.banner } : undefined,
      logLevel: "warning",
    }),
  ),
);

// Webview panels (trace viewer, compare, training dashboard): browser bundles.
await buildWebviews("dist/webview");
