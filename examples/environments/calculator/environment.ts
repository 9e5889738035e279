/**
 * A whole environment in one folder, as a user adds one: copy the folder to src/core/envs/calculator/
 * and change the imports' "../../../src/core/" to "../../" (README "Add your own environment"; here it
 * stays out of the pickers; test/unit/core/envs/toy-env/ runs it through eval and sft-data, and
 * add-a-folder.test.ts drops it into a copy of src/ and runs the CLI): two-number sums, a calculator tool the
 * model may call with `<calc>a+b</calc>` (the harness inserts `= n` as the next user turn), and a
 * final `<final>n</final>`. Reward 1 for the right sum, −0.1 per calculator call beyond the first.
 * Data: `prepare` writes seeded train/val/test.jsonl and a splits.json that locks the test hash.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatPrompt } from "../../../src/core/base/chat";
import { UserError } from "../../../src/core/base/errors";
import type { EndReason, EnvItem, Environment, EpisodeTurn, TurnOutcome } from "../../../src/core/harness/environment";
import { INFO } from "./info";

const SYSTEM = "Add the two numbers. You may call <calc>a+b</calc>; answer with <final>n</final>.";
const tagged = (text: string, tag: string) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(text)?.[1]?.trim();
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

function lines(n: number, seed: number, prefix: string): string {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: n }, (_, i) => {
    const [a, b] = [next() % 900, next() % 900];
    return JSON.stringify({ id: `${prefix}-${i}`, question: `What is ${a} + ${b}?`, answers: [String(a + b)] }) + "\n";
  }).join("");
}

export const ENVIRONMENT: Environment<EnvItem> = {
  name: "calculator",
  version: "1",
  summary: INFO.summary,
  metrics: INFO.metrics,
  scorerVersion: "calculator-exact-1",
  tools: [
    {
      name: "calc",
      description: "adds two numbers",
      parameters: { type: "object", properties: { expression: { type: "string" } } },
    },
  ],
  sftRequiresToolUse: true,
  data: {
    dir: (dataDir) => join(dataDir, "calculator"),
    load: (dir, split) => {
      const file = join(dir, `${split}.jsonl`);
      if (!existsSync(file)) throw new UserError(`${file} is missing: run prepare --env calculator`);
      const text = readFileSync(file, "utf8");
      if (split === "test" && sha(text) !== JSON.parse(readFileSync(join(dir, "splits.json"), "utf8")).test_sha256_full)
        throw new UserError(`${file} changed since prepare`);
      return text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as EnvItem);
    },
    prepare: async (o) => {
      mkdirSync(o.outDir, { recursive: true });
      const splits = { train: lines(40, 1, "train"), val: lines(10, 2, "val"), test: lines(10, 3, "test") };
      for (const [name, text] of Object.entries(splits)) writeFileSync(join(o.outDir, `${name}.jsonl`), text);
      writeFileSync(join(o.outDir, "splits.json"), JSON.stringify({ test_sha256_full: sha(splits.test) }));
      return [`train 40 | val 10 | test 10`];
    },
  },
  defaultPromptFile: () => undefined,
  open: async () => ({
    fingerprint: { calculator: { penalty_per_extra_call: 0.1 } },
    start: (item, setup) => {
      const calls: string[] = [];
      let answer = "";
      return {
        prompt: chatPrompt(setup.tokenizer, setup.systemPrompt ?? SYSTEM, item.question),
        toolCalls: calls,
        onReply(turn: EpisodeTurn): TurnOutcome {
          if (turn.stopReason === "length") return { end: "length" };
          const final = tagged(turn.reply, "final");
          if (final !== undefined) {
            turn.action = "answer";
            answer = final;
            return { end: "answer" };
          }
          const expr = tagged(turn.reply, "calc");
          if (expr === undefined) return { end: "no_action" };
          turn.action = "calc";
          turn.query = expr;
          calls.push(expr);
          if (calls.length > 3) return { end: "budget" };
          const sum = expr.split("+").reduce((s, t) => s + Number(t), 0);
          return { observation: Number.isFinite(sum) ? `= ${sum}` : "= error" };
        },
        score(end: EndReason) {
          const right = end === "answer" && answer === item.answers[0] ? 1 : 0;
          return {
            prediction: answer,
            metrics: { exact: right },
            reward: right - 0.1 * Math.max(0, calls.length - 1),
            fields: { calls: calls.length },
          };
        },
      };
    },
  }),
};
