/**
 * Child process for the reliability suite: a job sharing the workspace's local backend. Starts or
 * reuses it, prints one JSON line {started, url}, waits `gapMs` (a real job loads its tokenizer
 * and data between the handshake and its first request), then asks the server something every
 * 30 ms for `busyMs` (or, given a stop file, until that file exists), then closes; exits 1 naming
 * the first request that failed.
 * Run: node --import tsx shared-backend-child.ts <dir> <port> <gapMs> <busyMs> [stopFile]
 */
import { existsSync } from "node:fs";
import { connectOrStartLocalBackend } from "../../../src/server";

async function main(): Promise<void> {
  const [dir, port, gapMs, busyMs, stopFile] = process.argv.slice(2);
  const handle = await connectOrStartLocalBackend({ dir, port: Number(port) });
  console.log(JSON.stringify({ started: handle.started, url: handle.url }));
  await new Promise((r) => setTimeout(r, Number(gapMs)));
  const until = Date.now() + Number(busyMs);
  while (stopFile ? !existsSync(stopFile) : Date.now() < until) {
    const res = await fetch(`${handle.url}/api/v1/get_server_capabilities`);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    await new Promise((r) => setTimeout(r, 30));
  }
  await handle.close();
  console.log(JSON.stringify({ closedAt: Date.now() }));
}

main().catch((e: unknown) => {
  const cause = (e as { cause?: { code?: string } }).cause?.code;
  console.error(`child failed: ${(e as Error).message}${cause ? ` (${cause})` : ""}`);
  process.exitCode = 1;
});
