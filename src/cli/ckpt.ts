/**
 * `agent-lab ckpt NAME [state]` — the recipe's ckpt.py: print a registered checkpoint's sampler path
 * (for `eval --model-path`) or its state path (for `train-grpo --init-state`), so shells can write
 * `$(agent-lab ckpt sft-e2 state)`. `--list` prints every registered name.
 *
 * The lifecycle verbs (`info|ttl|publish|unpublish|download|delete NAME|PATH`, `--remote`) are the
 * official tinker CLI's, run against the service that holds the checkpoint (ckpt-lifecycle.ts).
 */
import { join } from "node:path";
import { UserError } from "../core/base/errors";
import {
  findCheckpoint,
  knownNames,
  readRegistry,
  registryPath,
  requireCheckpoint,
} from "../core/base/checkpoints/registry";
import { CKPT_STEP } from "../core/steps/catalog/catalog";
import { LIFECYCLE_VERBS, runLifecycle, type LifecycleVerb } from "./ckpt-lifecycle";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(CKPT_STEP, argv);
  if (!args) return;
  const { values, positionals, config, workspaceDir } = args;
  const runsDir = join(workspaceDir, config.runsDir);
  const file = registryPath(runsDir);
  if (values.list) {
    const entries = readRegistry(file);
    for (const name of knownNames(entries)) {
      const e = findCheckpoint(entries, name)!;
      console.log(
        `${name}\t${e.kind ?? "?"}\tstep ${e.step ?? "?"}\tparent ${e.parent ?? "(base model)"}\t${e.sampler_path}`,
      );
    }
    return;
  }
  const [first, ...rest] = positionals;
  if (values.remote || (LIFECYCLE_VERBS as readonly string[]).includes(first ?? "")) {
    return runLifecycle({
      verb: values.remote ? "remote" : (first as LifecycleVerb),
      args: values.remote ? positionals : rest,
      runsDir,
      workspaceDir,
      backend: values.backend,
      port: values["local-port"],
      out: values.out,
      force: Boolean(values.force),
      yes: Boolean(values.yes),
      json: Boolean(values.json),
    });
  }
  const [name, which = "sampler", ...extra] = positionals;
  if (!name) throw new UserError("a checkpoint NAME is required (agent-lab ckpt --list prints them)");
  if (extra.length) throw new UserError(`unexpected arguments: ${extra.join(" ")}`);
  if (which !== "sampler" && which !== "state")
    throw new UserError(`the second argument must be "sampler" or "state", got "${which}"`);
  const entry = requireCheckpoint(file, name);
  console.log(which === "state" ? entry.state_path : entry.sampler_path);
}
