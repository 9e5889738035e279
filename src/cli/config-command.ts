/** `agent-lab config [--workspace DIR]`: prints the effective settings as JSON. */
import { CONFIG_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(CONFIG_STEP, argv);
  if (!args) return;
  console.log(JSON.stringify(args.config, null, 2));
}
