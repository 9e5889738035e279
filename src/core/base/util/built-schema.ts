/**
 * A JSON schema the build completes: reads the template at `root/template`, fills it, and writes it
 * to `root/built` (the settings and experiment schemas, whose choices come from the environment folders).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeJsonAtomic } from "./atomic-write";

export function writeBuiltSchema<T>(
  root: string,
  template: string,
  built: string,
  fill: (template: T) => unknown,
): void {
  const parsed = JSON.parse(readFileSync(join(root, template), "utf8")) as T;
  const out = join(root, built);
  mkdirSync(dirname(out), { recursive: true });
  writeJsonAtomic(out, fill(parsed));
}
