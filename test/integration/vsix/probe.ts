/**
 * Extension-tests entry for scripts/vscode/check-vsix.mjs (not part of the main suite): VS Code runs
 * it while the *installed* .vsix (not the development copy) is the Agent Lab extension. It checks
 * that the installed extension activates on a workspace with runs and registers its commands.
 */
import * as vscode from "vscode";

async function check(): Promise<string[]> {
  const problems: string[] = [];
  const ext = vscode.extensions.getExtension("agent-lab.agent-lab");
  if (!ext) return ["agent-lab.agent-lab is not installed"];
  const expected = process.env.AGENT_LAB_VSIX_EXTENSIONS_DIR;
  if (expected && !ext.extensionPath.startsWith(expected))
    problems.push(`loaded from ${ext.extensionPath}, not from the installed extensions folder ${expected}`);
  const end = Date.now() + 20_000;
  while (!ext.isActive && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  if (!ext.isActive) {
    try {
      await ext.activate();
      problems.push("did not activate by itself on a workspace with runs/ (activated on request)");
    } catch (e) {
      problems.push(`activation failed: ${(e as Error).message}`);
    }
  }
  const contributed = (
    (ext.packageJSON as { contributes?: { commands?: { command: string }[] } }).contributes?.commands ?? []
  ).map((c) => c.command);
  const registered = new Set(await vscode.commands.getCommands(true));
  const missing = contributed.filter((c) => !registered.has(c));
  if (missing.length) problems.push(`commands not registered: ${missing.join(", ")}`);
  console.log(
    `[vsix] ${ext.id} ${(ext.packageJSON as { version: string }).version} active=${ext.isActive} from ${ext.extensionPath}; ${contributed.length} commands`,
  );
  return problems;
}

export async function run(): Promise<void> {
  const problems = await check();
  for (const p of problems) console.log(`[vsix] ${p}`);
  console.log(
    `AGENT_LAB_IT_RESULT ${JSON.stringify({ passes: problems.length ? 0 : 1, failures: problems.length ? 1 : 0, pending: 0 })}`,
  );
  if (problems.length) throw new Error(problems.join("; "));
}
