/** Every path under a folder with a hash of its bytes: two snapshots are equal when nothing was written there. */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export function folderSnapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const rel = relative(dir, p);
      if (statSync(p).isDirectory()) {
        out[`${rel}/`] = "dir";
        walk(p);
      } else {
        out[rel] = createHash("sha256").update(readFileSync(p)).digest("hex");
      }
    }
  };
  walk(dir);
  return out;
}
