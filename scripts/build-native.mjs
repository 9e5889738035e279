// The search index's mmap addon (src/native/file-map.cc → dist/native/file-map.node), built for the
// Node that runs this script with the system's C++ compiler and that Node's own headers. Optional:
// where either is missing, or the result does not load, it says so in one line and the search reads
// its index with positional reads (src/core/base/search/file-map.ts).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// Where the addon's source is and where it goes: src/core/base/search/file-map.ts loads it from there.
const { source, addon: out } = JSON.parse(readFileSync("src/core/base/search/file-map-addon.json", "utf8"));

export function buildNative() {
  rmSync(out, { force: true });
  const headers = path.join(path.dirname(process.execPath), "..", "include", "node");
  const skip = (why) =>
    console.log(`file-map addon not built (${why}): large search indexes are read with positional reads`);
  if (process.platform !== "linux") return skip(`${process.platform}: Linux only`);
  if (!existsSync(path.join(headers, "node.h"))) return skip(`no Node headers in ${headers}`);
  mkdirSync(path.dirname(out), { recursive: true });
  try {
    execFileSync(
      process.env.CXX || "c++",
      ["-O2", "-std=c++17", "-shared", "-fPIC", `-I${headers}`, "-o", out, source],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    createRequire(import.meta.url)(path.resolve(out));
  } catch (e) {
    rmSync(out, { force: true });
    const first = String(e.stderr ?? e.message)
      .trim()
      .split("\n")[0];
    return skip(first || "the compiler failed");
  }
}

if (import.meta.url === `file://${process.argv[1]}`) buildNative();
