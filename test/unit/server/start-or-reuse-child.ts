/**
 * Child process for the reliability suite: starts or reuses the local backend of a folder on a
 * port, prints one JSON line {started, url}, keeps it up a moment (so the other children can
 * reuse it), then closes. Run: node --import tsx start-or-reuse-child.ts <dir> <port> <holdMs>
 */
import { connectOrStartLocalBackend } from "../../../src/server";

async function main(): Promise<void> {
  const [dir, port, holdMs] = process.argv.slice(2);
  const handle = await connectOrStartLocalBackend({ dir, port: Number(port) });
  console.log(JSON.stringify({ started: handle.started, url: handle.url }));
  await new Promise((r) => setTimeout(r, Number(holdMs)));
  await handle.close();
}

main().catch((e: unknown) => {
  console.error(`child failed: ${(e as Error).message}`);
  process.exitCode = 1;
});
