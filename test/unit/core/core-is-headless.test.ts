import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const CORE = join(__dirname, "../../../src/core");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.(ts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

describe("src/core is headless", () => {
  it("never imports vscode", () => {
    const offenders = sources(CORE).filter((file) =>
      /(?:from\s+|require\(\s*|import\(\s*|import\s+)["']vscode["']/.test(readFileSync(file, "utf8")),
    );
    assert.deepEqual(
      offenders.map((f) => relative(CORE, f)),
      [],
    );
  });
});
