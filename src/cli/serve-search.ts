/**
 * `agent-lab serve-search [--index DIR] [--port P] [--host HOST]`: opens a BM25 index once and serves
 * it over HTTP until SIGINT/SIGTERM, so eval, GRPO and sft-data jobs (searchUrl, --search-url) share
 * one index instead of each opening its own.
 */
import { isAbsolute, join } from "node:path";
import { UserError } from "../core/base/errors";
import { openIndex, serveSearch } from "../core/base/search";
import { SERVE_SEARCH_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(SERVE_SEARCH_STEP, argv);
  if (!args) return;
  const { values, config, workspaceDir } = args;
  // Relative to the workspace, as eval's --index is.
  const inWorkspace = (p: string) => (isAbsolute(p) ? p : join(workspaceDir, p));
  const indexDir = values.index !== undefined ? inWorkspace(values.index) : join(inWorkspace(config.dataDir), "bm25");
  // The reader's own refusals (no index, torn, old format, corrupt) are one line each.
  const searcher = await openIndex(indexDir);
  let server;
  try {
    server = await serveSearch(searcher, {
      port: values.port,
      host: values.host,
      log: (line) => console.error(`[serve-search] ${line}`),
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new UserError(
        `could not serve the index: port ${values.port} on ${values.host} is in use (another serve-search, or another program); pass --port with a free port, or --port 0 to pick one`,
      );
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
      throw new UserError(`could not serve the index: --host ${values.host} is not an address of this machine`);
    throw new UserError(`could not serve the index on ${values.host}:${values.port}: ${(e as Error).message}`);
  }
  const { documents, indexSha256 } = searcher.describe();
  console.log(`serving ${indexDir}: ${String(documents)} paragraphs, sha256 ${String(indexSha256).slice(0, 12)}`);
  console.log(`listening on ${server.url}`);
  await new Promise<void>((done) => {
    const stop = (signal: string) => {
      console.log(`${signal}: shutting down`);
      void server.close().then(done);
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
}
