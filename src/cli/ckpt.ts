/**
 * `agent-lab ckpt NAME [state]` — the recipe's ckpt.py: print a registered checkpoint's sampler path
 * (for `eval --model-path`) or its state path (for `train-grpo --init-state`), so shells can write
 * `$(agent-lab ckpt sft-e2 state)`. `--list` prints every registered name.
 */
import { join } from "node:path";
import { loadConfig } from "../core/config";
import { UserError } from "../core/errors";
import { findCheckpoint, knownNames, readRegistry, registryPath, requireCheckpoint } from "../core/checkpoints/registry";
import { parse } from "./args";

const HELP = `usage: agent-lab ckpt NAME [sampler|state] [--workspace DIR]
       agent-lab ckpt --list [--workspace DIR]

  NAME          a checkpoint name from <runsDir>/checkpoints.jsonl (e.g. sft-e2, grpo-s30);
                when a name was registered twice, the later entry wins
  sampler       print the sampler path, for eval --model-path (default)
  state         print the state path, for train-grpo --init-state or train-sft --init-state
  --list        print every name with its kind, step and parent
  --workspace   folder holding agent-lab.json and runs/ (default .)`;

export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse("ckpt", argv, { workspace: { type: "string", default: "." }, list: { type: "boolean" }, help: { type: "boolean", short: "h" } }, true);
  if (values.help) {
    console.log(HELP);
    return;
  }
  const config = loadConfig(values.workspace!);
  const file = registryPath(join(values.workspace!, config.runsDir));
  if (values.list) {
    const entries = readRegistry(file);
    for (const name of knownNames(entries)) {
      const e = findCheckpoint(entries, name)!;
      console.log(`${name}\t${e.kind ?? "?"}\tstep ${e.step ?? "?"}\tparent ${e.parent ?? "(base model)"}\t${e.sampler_path}`);
    }
    return;
  }
  const [name, which = "sampler", ...extra] = positionals;
  if (!name) throw new UserError(`a checkpoint NAME is required\n${HELP}`);
  if (extra.length) throw new UserError(`unexpected arguments: ${extra.join(" ")}`);
  if (which !== "sampler" && which !== "state") throw new UserError(`the second argument must be "sampler" or "state", got "${which}"`);
  const entry = requireCheckpoint(file, name);
  console.log(which === "state" ? entry.state_path : entry.sampler_path);
}
