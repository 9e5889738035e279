/** `agent-lab config [--workspace DIR]`: prints the effective settings as JSON. */
import { loadConfig } from "../core/config";
import { parse } from "./args";

export async function run(argv: string[]): Promise<void> {
  const { values } = parse("config", argv, { workspace: { type: "string", default: "." } });
  console.log(JSON.stringify(loadConfig(values.workspace!), null, 2));
}
