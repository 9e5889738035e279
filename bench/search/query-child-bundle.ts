/**
 * query-child.ts bundled the way dist/cli.js is (scripts/node-bundle.mjs), so the timed queries
 * run the search as its users run it: one bundle, not tsx's file-by-file transpile, where every
 * use of an imported binding is a property read (measured at 507k: tsx 5–7% slower at the p50s,
 * bench/search/README.md). Built once per benchmark process into the work folder.
 */
import { buildSync } from "esbuild";
import { join } from "node:path";
import { NODE_BUNDLE } from "../../scripts/node-bundle.mjs";

const built = new Map<string, string>();

/** The bundled query child in `workDir` (built on first use). */
export function queryChildScript(workDir: string): string {
  let script = built.get(workDir);
  if (script === undefined) {
    script = join(workDir, "query-child.js");
    buildSync({
      ...NODE_BUNDLE,
      entryPoints: [join(__dirname, "query-child.ts")],
      outfile: script,
      logLevel: "warning",
    });
    built.set(workDir, script);
  }
  return script;
}
