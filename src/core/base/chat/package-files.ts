/**
 * Finds files the project ships (data/prompts/…) and the optional ../shared/data folder, whether the
 * code runs from src/ through tsx or bundled into dist/: walk up to the folder whose package.json
 * is this project's.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

let root: string | undefined;

/** The project folder (the one holding agent-lab's package.json). */
export function projectRoot(): string {
  if (root) return root;
  let dir = __dirname;
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "agent-lab") return (root = dir);
      } catch {
        // an unreadable package.json further down (e.g. inside node_modules) is not ours; keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`agent-lab's package.json not found above ${__dirname}`);
    dir = parent;
  }
}

/** A file shipped with the project, e.g. projectFile("data", "prompts", "system.md"). */
export function projectFile(...parts: string[]): string {
  return join(projectRoot(), ...parts);
}
