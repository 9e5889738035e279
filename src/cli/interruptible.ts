/**
 * How every long-running command (training, gen-tasks, pipeline, experiment) stops: it hands the
 * signal to the core step, which finishes its current step and saves, so a rerun with --resume
 * continues where it stopped.
 */
import { UserError } from "../core/base/errors";

/** First Ctrl-C / SIGTERM: finish the step, save, stop. Second: leave at once. */
export async function interruptible(job: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    console.error(`\n${sig}: stopping after the current step (again to quit at once)`);
    controller.abort(new UserError(`stopped by ${sig}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await job(controller.signal);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
