/**
 * GSM8K-shaped records written by tests, so a clone without ../shared/data still exercises the
 * plumbing, and the scripted replies the tests answer them with (right, wrong, unboxed, cut off).
 * The integration suite's fixture workspace (scripts/vscode/gsm8k-fixture.ts) uses both too.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Gsm8kRecord } from "../../../../../src/core/envs/gsm8k";
import { GSM8K } from "../../../../../src/core/envs/gsm8k/environment";
import type { ScriptedReply } from "../../../../../src/core/harness/policies/scripted";

/** The fixture twin: arithmetic word problems in GSM8K's shape (530 train, 40 test). */
export function fixtureRecords(n: number, offset: number): Gsm8kRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const a = 3 + ((i * 7 + offset) % 90);
    const b = 1000 + ((i * 13 + offset) % 5000);
    return {
      question: `Rosa has ${a} marbles and wins ${b} more (item ${offset + i}). How many marbles does she have now?`,
      answer: `She has ${a} + ${b} = <<${a}+${b}=${a + b}>>${a + b} marbles.\n#### ${a + b}`,
    };
  });
}

/** Writes the twin as raw files in `rawDir` (gsm8k-train.jsonl: 530, gsm8k-test.jsonl: 40). */
export function writeFixtureTwin(rawDir: string): { train: string; test: string } {
  mkdirSync(rawDir, { recursive: true });
  const files = { train: join(rawDir, "gsm8k-train.jsonl"), test: join(rawDir, "gsm8k-test.jsonl") };
  writeFileSync(
    files.train,
    fixtureRecords(530, 0)
      .map((r) => JSON.stringify(r))
      .join("\n") + "\n",
  );
  writeFileSync(
    files.test,
    fixtureRecords(40, 10_000)
      .map((r) => JSON.stringify(r))
      .join("\n") + "\n",
  );
  return files;
}

/** The twin prepared as GSM8K's splits under `dataDir` (what prepare --env gsm8k --train --test writes). */
export async function prepareFixtureTwin(dataDir: string, rawDir: string): Promise<void> {
  const { train, test } = writeFixtureTwin(rawDir);
  await GSM8K.data.prepare({ outDir: GSM8K.data.dir(dataDir), train: [train], test: [test], log: () => undefined });
}

export type Behaviour = "right" | "wrong" | "unboxed" | "truncated";
const BEHAVIOURS: Behaviour[] = ["right", "wrong", "right", "unboxed", "truncated", "right", "wrong"];

/** A fixed behaviour per item id (a hash), so expected scores are computed apart from the harness. */
export function behaviourOf(id: string): Behaviour {
  const h = [...id].reduce((a, c) => (a * 33 + c.charCodeAt(0)) >>> 0, 5381);
  return BEHAVIOURS[h % BEHAVIOURS.length];
}

/** How a model writes a GSM8K answer: commas, dollars, LaTeX, a final box. */
export function replyFor(reference: string, b: Behaviour): ScriptedReply {
  const n = Number(reference);
  const pretty = Number.isInteger(n) && Math.abs(n) >= 1000 ? n.toLocaleString("en-US") : reference;
  if (b === "right") return `Working it out step by step, the total is ${pretty}. \\boxed{${pretty}}`;
  if (b === "wrong")
    return `I think it is ${Number.isFinite(n) ? n + 1 : 0}. \\boxed{${Number.isFinite(n) ? n + 1 : 0}}`;
  if (b === "unboxed") return `The answer is ${pretty}.`;
  return { text: `Long working... so the answer is \\boxed{${pretty}} and then I keep`, stopReason: "length" };
}

/** The last user message of the rendered prompt, minus the environment's suffix: the question. */
export function questionOf(promptText: string): string {
  const users = promptText.split("<|im_start|>user\n");
  return users[users.length - 1].split("<|im_end|>")[0].replace(" Write your answer in \\boxed{} format.", "");
}
