/**
 * Reliability: several jobs sharing a local backend one of them started. The starter finishes
 * first; the others decided to reuse its server just before and reach it only later (loading
 * their data): none may die ECONNREFUSED (2 of 6 did), and the starter exits after the last one.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../helpers/local-backend";

interface ChildResult {
  code: number | null;
  out: string;
  err: string;
}

function job(
  dir: string,
  port: number,
  o: { gapMs: number; busyMs: number; stopFile?: string },
  onOut?: (out: string) => void,
) {
  return new Promise<ChildResult>((resolve) => {
    const args = [dir, String(port), String(o.gapMs), String(o.busyMs), ...(o.stopFile ? [o.stopFile] : [])];
    const p = spawn(process.execPath, ["--import", "tsx", join(__dirname, "shared-backend-child.ts"), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    p.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      onOut?.(out);
    });
    p.stderr.on("data", (d: Buffer) => (err += d.toString()));
    p.on("close", (code) => resolve({ code, out, err }));
  });
}

async function waitUntil(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 20));
}

const lines = (r: ChildResult) =>
  r.out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("reliability: jobs sharing an auto-started local backend", function () {
  this.timeout(90_000);

  it("the starter finishing first stops nothing another job still uses; none dies ECONNREFUSED", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-shared-backend-"));
    try {
      const port = await freePort();
      const stopFile = join(dir, "starter-done");
      const handshakes = new Set<number>();
      const starter = job(dir, port, { gapMs: 0, busyMs: 0, stopFile }, (out) => out && handshakes.add(0));
      await waitUntil(() => handshakes.has(0));
      // The others decide to reuse it while the starter works, and first use it 1.5 s later…
      const others = Array.from({ length: 5 }, (_, i) =>
        job(dir, port, { gapMs: 1_500, busyMs: 300 + 100 * i }, (out) => out && handshakes.add(i + 1)),
      );
      await waitUntil(() => handshakes.size === 6);
      // …by when the starter is done with it.
      writeFileSync(stopFile, "");
      const results = [await starter, ...(await Promise.all(others))];
      for (const r of results) assert.equal(r.err, "", r.err);
      for (const r of results) assert.equal(r.code, 0);
      const first = results.map((r) => lines(r)[0]);
      assert.deepEqual(
        first.map((l) => l.started),
        [true, false, false, false, false, false],
      );
      const closedAt = results.map((r) => Number(lines(r)[1].closedAt));
      assert.ok(closedAt[0] >= Math.max(...closedAt.slice(1)), "the starter stopped after the last job that used it");
      assert.deepEqual(readdirSync(join(dir, "clients")), [], "every lease given back");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
