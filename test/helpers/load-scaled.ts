/**
 * A time limit for a test that measures speed, scaled by how busy the machine is: the target on an
 * idle machine, proportionally more when other work holds the cores (a shared CI or developer box),
 * so the test still catches a regression of several times without failing on someone else's load.
 * The numbers we claim come from the benchmarks in bench/, not from these guards.
 */
import { cpus, loadavg } from "node:os";

export function loadScaledLimit(idleMs: number): number {
  const busy = loadavg()[0] / Math.max(1, cpus().length);
  return Math.round(idleMs * Math.max(1, busy));
}
