/**
 * The `agent-lab` command: one thin front per recipe step, over src/core.
 * The extension runs these same commands as child processes (jobs), so anything the UI does can be
 * done from a terminal or CI. Commands and their flags are the step specs (src/core/steps/catalog/catalog.ts).
 */
import { describeFailure, runCommand } from "./run-command";

const command = process.argv[2] ?? "";
// A failure outside the awaited chain (a timer, a stream) is reported like any other: one line, no stack unless asked.
for (const event of ["uncaughtException", "unhandledRejection"] as const) {
  process.on(event, (e: unknown) => {
    console.error(describeFailure(command, e).text);
    process.exit(1);
  });
}

runCommand(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    // runCommand catches what commands throw; this is only reached by a failure in printing itself.
    console.error(describeFailure("", e).text);
    process.exitCode = 1;
  },
);
