/**
 * `agent-lab serve-local`: runs the local Tinker-compatible backend (a stand-in with a tiny CPU
 * model) until SIGINT/SIGTERM. Point the TypeScript client or the Python SDK at the printed URL
 * (TINKER_BASE_URL=<url>, any TINKER_API_KEY starting with "tml-").
 */
import { resolve } from "node:path";
import { UserError } from "../core/errors";
import { parseFaultSpec, startLocalBackend, STAND_IN_NOTICE } from "../server";
import { intFlag, parse } from "./args";
import { localBackendDir } from "../core/eval/backends";

const HELP = `usage: agent-lab serve-local [--port P] [--dir D] [--seed S] [--faults SPEC]

  --port     port on 127.0.0.1 (default 8765; 0 picks a free one)
  --dir      folder for checkpoints and run records (default .cache/local-backend)
  --seed     model seed (default 0)
  --faults   comma-separated fault injection, e.g. latency=50,429=0.2,5xx=0.05,drop=0.05,slow=200,seed=3
             (latency/slow in ms; 429 = rate on asample; 5xx/drop = rate on every other endpoint)`;

export async function run(argv: string[]): Promise<void> {
  const { values } = parse("serve-local", argv, {
    port: { type: "string" },
    dir: { type: "string" },
    seed: { type: "string" },
    faults: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
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
      port: intFlag("port", values.port, 0) ?? 8765,
      dir,
      seed: intFlag("seed", values.seed) ?? 0,
      faults,
      log: (line) => console.log(`[local-backend] ${line}`),
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new UserError(`could not start the local backend: port ${values.port ?? 8765} on 127.0.0.1 is in use (another serve-local, or another program); pass --port with a free port, or --port 0 to pick one`);
    throw new UserError(`could not start the local backend: ${(e as Error).message}`);
  }
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
