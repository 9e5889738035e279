/**
 * The integration workspace's GSM8K eval run: `agent-lab prepare --env gsm8k` (the real CLI) on
 * the GSM8K unit tests' fixture twin, then the eval step (core's evalSplit, which `agent-lab eval`
 * runs) with the unit tests' scripted replies (right, wrong, unboxed, cut off), because no offline
 * model solves GSM8K and the CLI's scripted backend is HotpotQA's reader. Everything in the run
 * folder is what the harness and the GSM8K grader wrote.
 *
 *   node --import tsx scripts/vscode/gsm8k-fixture.ts WORKSPACE CLI_JS RUN_NAME
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { offlineTokenizer } from "../../src/core/base/chat";
import { loadConfig } from "../../src/core/envs/config";
import { GSM8K } from "../../src/core/envs/gsm8k/environment";
import { evalSplit } from "../../src/core/steps/eval/eval-split";
import { ScriptedPolicy } from "../../src/core/harness/policies/scripted";
import { behaviourOf, questionOf, replyFor, writeFixtureTwin } from "../../test/unit/core/envs/gsm8k/fixture";

/** Episodes in the fixture's GSM8K run: enough for every behaviour of the scripted replies. */
const EPISODES = 14;

async function main(): Promise<void> {
  const [dir, cli, name] = process.argv.slice(2);
  if (!dir || !cli || !name) throw new Error("usage: gsm8k-fixture.ts WORKSPACE CLI_JS RUN_NAME");
  const raw = writeFixtureTwin(join(dir, "raw-gsm8k"));
  execFileSync(process.execPath, [cli, "prepare", "--env", "gsm8k", "--train", raw.train, "--test", raw.test], {
    cwd: dir,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const config = loadConfig(dir);
  const items = GSM8K.data.load(GSM8K.data.dir(join(dir, config.dataDir)), "val");
  const byQuestion = new Map(items.map((i) => [i.question, i]));
  const tok = await offlineTokenizer("qwen3");
  const policy = new ScriptedPolicy(tok, (ctx) => {
    const item = byQuestion.get(questionOf(ctx.promptText));
    if (!item) throw new Error("the prompt does not end with a val question");
    return replyFor(item.answers[0], behaviourOf(item.id));
  });
  await evalSplit({
    workspaceDir: dir,
    config,
    env: "gsm8k",
    name,
    split: "val",
    limit: EPISODES,
    closedBook: false,
    resume: false,
    temperature: 0,
    backend: "scripted",
    policy,
    command: ["node", "scripts/vscode/gsm8k-fixture.ts", "(scripted GSM8K replies of the unit tests)"],
  });
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
