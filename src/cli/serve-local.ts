/**
 * `agent-lab serve-local`: runs the local Tinker-compatible backend (a stand-in with a tiny CPU
 * model) until SIGINT/SIGTERM. Point the TypeScript client or the Python SDK at the printed URL
 * (TINKER_BASE_URL=<url>, any TINKER_API_KEY starting with "tml-").
 */
import { resolve } from "node:path";
import { UserError } from "../core/base/errors";
import { parseFaultSpec, startLocalBackend, STAND_IN_NOTICE } from "../server";
import { SERVE_LOCAL_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";
import { markLocalBackendProcess } from "./local-backend";
import { localBackendDir } from "../core/steps/eval/backends";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(SERVE_LOCAL_STEP, argv);
  if (!args) return;
  const { values } = args;
  let faults;
  try {
    faults = values.faults ? parseFaultSpec(values.faults) : undefined;
  } catch (e) {
    throw new UserError(`--faults: ${(e as Error).message}`);
  }
  const dir = resolve(values.dir ?? localBackendDir("."));
  let backend;
  try {
    backend = await startLocalBackend({
      port: values.port,
      dir,
      seed: values.seed,
      faults,
      log: (line) => console.log(`[local-backend] ${line}`),
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new UserError(
        `could not start the local backend: port ${values.port ?? 8765} on 127.0.0.1 is in use (another serve-local, or another program); pass --port with a free port, or --port 0 to pick one`,
      );
    throw new UserError(`could not start the local backend: ${(e as Error).message}`);
  }
  markLocalBackendProcess();
  console.log(STAND_IN_NOTICE);
  console.log(`checkpoints in ${dir}`);
  console.log(`listening on ${backend.url}`);
  await new Promise<void>((done) => {
    const stop = (signal: string) => {
      console.log(`${signal}: shutting down`);
      // Compute runs in a worker the close terminates, so this is quick; the timer is a backstop.
      setTimeout(() => process.exit(0), 1_500).unref();
      void backend.close().then(done);
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
}
