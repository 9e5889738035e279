/**
 * The layers the tree shows, kept by a test: every relative import in src/ (type-only and dynamic
 * ones too) goes down or sideways, never up, and no folder imports itself back through others.
 *
 * - src/core/<layer>: base → harness → envs → steps → views. A file imports its own layer and the
 *   ones before it; core imports nothing outside src/core (it starts the local backend through an
 *   interface, base/tinker/local-backend.ts, that the CLI fills in).
 * - Around core: server and language-server stand on core/base (the language server on views too);
 *   cli on core and server; extension on core and language-server. None imports cli or extension.
 * - Folders (a file's own directory) form no loop anywhere in src/.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(__dirname, "../../src");
const CORE_LAYERS = ["base", "harness", "envs", "steps", "views"];
/** What each part of src/ outside core may import: core layers (up to and including) and other parts. */
const PARTS: Record<string, { coreUpTo: string; parts: string[] }> = {
  server: { coreUpTo: "base", parts: [] },
  "language-server": { coreUpTo: "views", parts: [] },
  cli: { coreUpTo: "views", parts: ["server"] },
  extension: { coreUpTo: "views", parts: ["language-server"] },
};
const IMPORT = /(?:\bfrom|\bimport|\brequire|\bexport\s*\*\s*from)\s*\(?\s*["'](\.{1,2}(?:\/[^"'\n]*)?)["']/g;

interface Edge {
  file: string;
  target: string;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith(".ts") ? [path] : [];
  });
}

function resolveImport(from: string, spec: string): string {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return base.endsWith(".js") ? `${base.slice(0, -3)}.ts` : base;
}

function edges(): Edge[] {
  return sources(SRC).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(IMPORT)].map((m) => ({
      file: relative(SRC, file),
      target: relative(SRC, resolveImport(file, m[1])),
    })),
  );
}

/** "core/steps/eval/run-eval.ts" → { part: "core", layer: 3 }; "cli/eval.ts" → { part: "cli" }. */
function place(path: string): { part: string; layer?: number } {
  const [part, layer] = path.split("/");
  return part === "core" ? { part, layer: CORE_LAYERS.indexOf(layer) } : { part };
}

/** Why an import from `file` to `target` goes against the layers, or undefined when it does not. */
export function againstLayers(file: string, target: string): string | undefined {
  const from = place(file);
  const to = place(target);
  if (from.part === "core") {
    if (from.layer === -1) return `${file} is in src/core but in no layer (${CORE_LAYERS.join(", ")})`;
    if (to.part !== "core") return `core imports src/${to.part}`;
    if (to.layer === -1 || to.layer! > from.layer!) return `core/${CORE_LAYERS[from.layer!]} imports a layer above it`;
    return undefined;
  }
  if (to.part === from.part) return undefined;
  const allowed = PARTS[from.part];
  if (!allowed) return `src/${from.part} is not a known part of src/`;
  if (to.part === "core")
    return to.layer! > CORE_LAYERS.indexOf(allowed.coreUpTo)
      ? `src/${from.part} imports core above ${allowed.coreUpTo}`
      : undefined;
  return allowed.parts.includes(to.part) ? undefined : `src/${from.part} imports src/${to.part}`;
}

/** Folder loops: each a list of folders a → b → … → a, with one file per step that makes it. */
export function folderLoops(all: Edge[]): string[] {
  const next = new Map<string, Map<string, string>>();
  for (const e of all) {
    const a = dirname(e.file);
    const b = dirname(e.target);
    if (a === b) continue;
    if (!next.has(a)) next.set(a, new Map());
    if (!next.get(a)!.has(b)) next.get(a)!.set(b, e.file);
  }
  const loops: string[] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (d: string): void => {
    state.set(d, "open");
    path.push(d);
    for (const [n, file] of next.get(d) ?? []) {
      if (state.get(n) === "open") {
        const loop = path.slice(path.indexOf(n));
        loops.push(`${[...loop, n].join(" → ")} (its last step: ${file})`);
      } else if (!state.has(n)) visit(n);
    }
    path.pop();
    state.set(d, "done");
  };
  for (const d of [...next.keys()].sort()) if (!state.has(d)) visit(d);
  return loops;
}

describe("src/ layers", () => {
  const all = edges();

  it("reads the imports it checks (a guard that saw nothing would pass)", () => {
    assert.ok(all.length > 1000, `only ${all.length} imports found`);
    assert.ok(all.some((e) => e.file.startsWith("core/steps/") && e.target.startsWith("core/base/")));
  });

  it("imports go down the layers: core base → harness → envs → steps → views, and the parts around core as declared", () => {
    const offenders = all.flatMap((e) => {
      const why = againstLayers(e.file, e.target);
      return why ? [`${e.file} → ${e.target}: ${why}`] : [];
    });
    assert.deepEqual(offenders, []);
  });

  it("no folder imports itself back through other folders", () => {
    assert.deepEqual(folderLoops(all), []);
  });

  it("the checks catch what they are about", () => {
    assert.match(againstLayers("core/base/runs/run-files.ts", "core/steps/sft/lineage.ts")!, /imports a layer above/);
    assert.match(againstLayers("core/steps/pipeline/run.ts", "server/reuse.ts")!, /core imports src\/server/);
    assert.match(againstLayers("server/reuse.ts", "core/steps/eval/backends.ts")!, /above base/);
    assert.equal(againstLayers("cli/eval.ts", "server/index.ts"), undefined);
    assert.match(againstLayers("extension/extension.ts", "cli/main.ts")!, /imports src\/cli/);
    const loop = folderLoops([
      { file: "core/base/a/x.ts", target: "core/base/b/y.ts" },
      { file: "core/base/b/y.ts", target: "core/base/c/z.ts" },
      { file: "core/base/c/z.ts", target: "core/base/a/w.ts" },
    ]);
    assert.deepEqual(loop, ["core/base/a → core/base/b → core/base/c → core/base/a (its last step: core/base/c/z.ts)"]);
  });
});
