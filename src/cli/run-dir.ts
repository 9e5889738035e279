/** A RUN argument of `show` and `ablate`: a folder path, or a run name under the workspace's runsDir. */
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { AgentLabConfig } from "../core/base/config";
import { UserError } from "../core/base/errors";

export function resolveRunDir(run: string, workspace: string, config: AgentLabConfig): string {
  if (existsSync(run)) return run;
  const named = join(isAbsolute(config.runsDir) ? config.runsDir : join(workspace, config.runsDir), run);
  if (existsSync(named)) return named;
  throw new UserError(`no run folder "${run}" (looked at ${run} and ${named})`);
}
