/**
 * What GSM8K declares for `gen-tasks --env gsm8k`: the scripted generator's honest arithmetic
 * templates, and the solve-rate filter's policy solver, one boxed reply per try graded as this
 * environment grades a reply.
 */
import type { EnvTaskGeneration } from "../../harness/tasks/env-tasks";
import { drawSeed, type TaskGenerator } from "../../harness/tasks/generator";
import { describePolicy, type PolicySolverOptions, type TaskSolver } from "../../harness/tasks/solver";
import {
  int,
  pick,
  TemplateGenerator,
  type ScriptedGeneratorOptions,
  type Template,
} from "../../harness/tasks/template-generator";
import { extractBoxed, gradeAnswer } from "./grader";
import { gsm8kPrompt } from "./prompt";
import { gradedReplyText } from "./reference";

const NAMES = [
  "Ava",
  "Ben",
  "Chloe",
  "Dev",
  "Elena",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jonah",
  "Kemi",
  "Luca",
  "Maya",
  "Noor",
  "Omar",
  "Priya",
];
const ITEMS = ["apples", "stickers", "marbles", "pencils", "cookies", "stamps", "shells", "cards"];

const GSM8K_TEMPLATES: Template[] = [
  (r) => {
    const [n, item, a, b] = [pick(r, NAMES), pick(r, ITEMS), int(r, 12, 90), int(r, 3, 40)];
    const c = int(r, 1, a + b - 1);
    return {
      problem: `${n} has ${a} ${item}. ${n} buys ${b} more and then gives ${c} to a friend. How many ${item} does ${n} have now?`,
      solution: `def solution():\n    have = ${a}\n    have += ${b}\n    have -= ${c}\n    return have`,
    };
  },
  (r) => {
    const [n, price, count] = [pick(r, NAMES), int(r, 2, 15), int(r, 2, 9)];
    const bill = [50, 100][int(r, 0, 1)];
    return {
      problem: `${n} buys ${count} notebooks that cost $${price} each and pays with a $${bill} bill. How many dollars of change does ${n} get?`,
      solution: `def solution():\n    cost = ${count} * ${price}\n    return ${bill} - cost`,
    };
  },
  (r) => {
    const [n, perDay, pages] = [pick(r, NAMES), int(r, 8, 40), int(r, 120, 600)];
    return {
      problem: `${n} reads ${perDay} pages every day. The book has ${pages} pages. How many days does ${n} need to finish the book?`,
      solution: `import math\n\ndef solution():\n    return math.ceil(${pages} / ${perDay})`,
    };
  },
  (r) => {
    const [rows, per, cut] = [int(r, 4, 20), int(r, 5, 25), int(r, 1, 30)];
    return {
      problem: `An orchard has ${rows} rows with ${per} trees in each row. A storm knocks down ${cut} trees. How many trees are still standing?`,
      solution: `def solution():\n    return ${rows} * ${per} - ${cut}`,
    };
  },
  (r) => {
    const [n, wage, hours, days] = [pick(r, NAMES), int(r, 9, 30), int(r, 2, 8), int(r, 2, 6)];
    return {
      problem: `${n} earns $${wage} an hour and works ${hours} hours a day for ${days} days. How many dollars does ${n} earn in total?`,
      solution: `def solution():\n    per_day = ${wage} * ${hours}\n    return per_day * ${days}`,
    };
  },
  (r) => {
    const [speed, t] = [int(r, 30, 110), int(r, 2, 9) / 2];
    return {
      problem: `A train travels at ${speed} kilometres per hour for ${t} hours. How many kilometres does it travel?`,
      solution: `def solution():\n    return ${speed} * ${t}`,
    };
  },
  (r) => {
    const [n, item, total, share] = [pick(r, NAMES), pick(r, ITEMS), int(r, 4, 30) * 6, [2, 3, 6][int(r, 0, 2)]];
    return {
      problem: `${n} has ${total} ${item} and shares them equally among ${share} friends, keeping none. How many ${item} does each friend get?`,
      solution: `def solution():\n    return ${total} // ${share}`,
    };
  },
];

export function scriptedGsm8kGenerator(o: ScriptedGeneratorOptions): TaskGenerator {
  return new TemplateGenerator(`scripted:gsm8k@seed${o.seed}`, GSM8K_TEMPLATES, o, false);
}

/** GSM8K: one boxed reply per try, graded as the GSM8K environment grades. */
export function gsm8kPolicySolver(o: PolicySolverOptions): TaskSolver {
  const tok = o.policy.tokenizer;
  return {
    id: `${describePolicy(o.policy)} gsm8k T=${o.temperature} max_tokens=${o.maxTokens} k=${o.tries} seed=${o.seed}`,
    tries: o.tries,
    async solve(task, onUsage, signal) {
      const p = gsm8kPrompt(task.problem);
      const prompt = tok.encode(tok.renderChat(p.messages, { addGenerationPrompt: true, thinking: p.thinking }));
      const out = await Promise.all(
        Array.from({ length: o.tries }, async (_, k) => {
          const s = await o.policy.sample(prompt, {
            temperature: o.temperature,
            maxTokens: o.maxTokens,
            seed: drawSeed(o.seed, k, `solve:${task.id}`),
            signal,
          });
          onUsage({ prefill: prompt.length, sampled: s.tokens.length });
          const reply = tok.decode(s.tokens, { skipSpecialTokens: true });
          return gradeAnswer(extractBoxed(gradedReplyText(reply, { stopped: s.stopReason === "stop" })), task.answer);
        }),
      );
      return out;
    },
  };
}

export const GEN_TASKS: EnvTaskGeneration = Object.freeze<EnvTaskGeneration>({
  scriptedGenerator: (o) => scriptedGsm8kGenerator({ seed: o.seed, brokenShare: o.brokenShare }),
  policySolver: (o) =>
    gsm8kPolicySolver({
      policy: o.policy,
      tries: o.tries,
      temperature: o.temperature,
      maxTokens: o.maxTokens,
      seed: o.seed,
    }),
});
