/**
 * The base policy's tries at a task, for the solve-rate filter: k samples at temperature T, each
 * graded by the target environment's own grader (GSM8K: the boxed answer against the executed one;
 * HotpotQA-style: one episode of the search harness, exact match). Offline, a scripted solver
 * stands in: a seeded coin per try whose bias is a per-task "difficulty" hashed from the task id —
 * it exercises the filter's k/k and 0/k drops without a model and says so in its id.
 */
import { createHash } from "node:crypto";
import { extractBoxed, gradeAnswer, gradedReplyText, gsm8kPrompt } from "../../envs/gsm8k";
import { runEpisode } from "../../envs/hotpotqa/episode";
import type { Policy } from "../../harness/policy";
import { exactMatch } from "../../envs/hotpotqa/score";
import type { Searcher } from "../../base/search/searcher";
import { drawSeed } from "./generators/generator";
import type { SolvableTask } from "./solve-rate";

export interface SolverUsage {
  prefill: number;
  sampled: number;
}

export interface TaskSolver {
  /** Names the policy and its decoding: cached tries are reused only under the same id. */
  readonly id: string;
  readonly tries: number;
  solve(task: SolvableTask, onUsage: (u: SolverUsage) => void, signal?: AbortSignal): Promise<boolean[]>;
}

const unit = (parts: unknown[]) =>
  createHash("sha256").update(JSON.stringify(parts)).digest().readUInt32BE(0) / 2 ** 32;

export function scriptedSolver(seed: number, tries: number): TaskSolver {
  return {
    id: `scripted-solver seed=${seed} k=${tries}`,
    tries,
    async solve(task) {
      // Difficulty spread over [0, 1] so some tasks are always, some never and most sometimes solved.
      const p = Math.min(1, Math.max(0, unit(["difficulty", seed, task.id]) * 1.4 - 0.2));
      return Array.from({ length: tries }, (_, k) => unit(["try", seed, task.id, k]) < p);
    },
  };
}

export interface PolicySolverOptions {
  policy: Policy;
  tries: number;
  temperature: number;
  maxTokens: number;
  seed: number;
}

/** GSM8K: one boxed reply per try, graded as the GSM8K environment grades. */
export function gsm8kPolicySolver(o: PolicySolverOptions): TaskSolver {
  const tok = o.policy.tokenizer;
  return {
    id: `${describe(o.policy)} gsm8k T=${o.temperature} max_tokens=${o.maxTokens} k=${o.tries} seed=${o.seed}`,
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

export interface HarnessSolverOptions extends PolicySolverOptions {
  searcher: Searcher;
  systemPrompt: string;
  topK: number;
  maxSearches: number;
}

/** HotpotQA-style: one episode of the search harness per try (the harness the arms train in), exact match. */
export function harnessPolicySolver(o: HarnessSolverOptions): TaskSolver {
  return {
    id: `${describe(o.policy)} hotpotqa-harness T=${o.temperature} max_tokens=${o.maxTokens} top_k=${o.topK} searches=${o.maxSearches} k=${o.tries} seed=${o.seed}`,
    tries: o.tries,
    async solve(task, onUsage, signal) {
      // The k tries are independent draws: in flight together, as GRPO samples a group.
      return Promise.all(
        Array.from({ length: o.tries }, async (_, k) => {
          const seed = drawSeed(o.seed, k, `solve:${task.id}`);
          let turn = 0;
          const seeded: Policy = {
            tokenizer: o.policy.tokenizer,
            endToken: o.policy.endToken,
            describe: () => o.policy.describe(),
            sample: (p, opts) => o.policy.sample(p, { ...opts, seed: seed + turn++ }),
          };
          const e = await runEpisode(
            seeded,
            o.searcher,
            { id: task.id, question: task.problem, answers: [task.answer] },
            {
              temperature: o.temperature,
              topK: o.topK,
              maxSearches: o.maxSearches,
              maxTokens: o.maxTokens,
              systemPrompt: o.systemPrompt,
              signal,
            },
          );
          onUsage({ prefill: e.prefill, sampled: e.generated });
          return e.end === "answer" && exactMatch(e.answer, [task.answer]) === 1;
        }),
      );
    },
  };
}

function describe(policy: Policy): string {
  const i = policy.describe();
  return `${i.kind}:${i.model}${i.checkpoint ? `@${i.checkpoint}` : ""}`;
}
