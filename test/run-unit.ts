/**
 * Runs every unit test (test/unit/**\/*.test.ts) with mocha in plain Node and closes with one line
 * CI reads: "unit: N passed, N failed, N skipped".
 *
 *   npm run test:unit                 all tests
 *   npm run test:unit -- score        only files whose path contains "score"
 */
import Mocha from "mocha";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

function findTests(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith(".test.ts")) found.push(path);
  }
  return found.sort();
}

async function main(): Promise<void> {
  const filters = process.argv.slice(2);
  const root = join(__dirname, "unit");
  const files = findTests(root).filter(
    (f) => filters.length === 0 || filters.some((k) => relative(root, f).includes(k)),
  );
  const mocha = new Mocha({ reporter: "spec", timeout: 60_000 });
  for (const f of files) mocha.addFile(f);
  await mocha.loadFilesAsync();
  const stats = await new Promise<Mocha.Stats>((resolve) => {
    const runner = mocha.run(() => resolve(runner.stats!));
  });
  console.log(`unit: ${stats.passes} passed, ${stats.failures} failed, ${stats.pending} skipped`);
  process.exitCode = stats.failures > 0 || stats.tests === 0 ? 1 : 0;
}

void main();
