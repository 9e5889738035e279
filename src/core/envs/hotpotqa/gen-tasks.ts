/**
 * What HotpotQA declares for `gen-tasks --env hotpotqa`: the scripted generator's lookups over a
 * world's paragraphs (answers looked up by the code), and the solve-rate filter's policy solver,
 * one episode of the search harness per try, exact match.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../base/errors";
import { openIndex } from "../../base/search";
import type { Searcher } from "../../base/search/searcher";
import { readJsonl } from "../../base/util/jsonl";
import { loadSystemPrompt } from "../../harness/prompts";
import type { Policy } from "../../harness/policy";
import type { EnvTaskGeneration } from "../../harness/tasks/env-tasks";
import { drawSeed, type TaskGenerator } from "../../harness/tasks/generator";
import { describePolicy, type PolicySolverOptions, type TaskSolver } from "../../harness/tasks/solver";
import {
  pick,
  py,
  TemplateGenerator,
  type ScriptedGeneratorOptions,
  type Template,
} from "../../harness/tasks/template-generator";
import { runEpisode } from "./episode";
import { exactMatch } from "./score";

export interface WorldFacts {
  people: { name: string; year: number; profession: string; town: string }[];
  companies: { name: string; year: number; founder: string }[];
  towns: Map<string, string>;
}

const PERSON = /^(.+?) \(born (\d{4})\) is an? (\w+)\.\s+(?:He|She) was born in (.+?) and later moved to/;
const COMPANY = /^(.+?) is an? \w+ company based in .+?\.\s+It was founded in (\d{4}) by (.+?)\./;
const TOWN = /^(.+?) is a town in (.+?)\./;

/** The facts a reader of the paragraphs can state (people, companies, towns), from corpus rows. */
export function readWorldFacts(paragraphs: Iterable<{ title: string; text: string }>): WorldFacts {
  const facts: WorldFacts = { people: [], companies: [], towns: new Map() };
  for (const p of paragraphs) {
    let m: RegExpExecArray | null;
    if ((m = PERSON.exec(p.text))) facts.people.push({ name: m[1], year: Number(m[2]), profession: m[3], town: m[4] });
    else if ((m = COMPANY.exec(p.text))) facts.companies.push({ name: m[1], year: Number(m[2]), founder: m[3] });
    else if ((m = TOWN.exec(p.text))) facts.towns.set(m[1], m[2]);
  }
  return facts;
}

function worldTemplates(f: WorldFacts): Template[] {
  const person = new Map(f.people.map((p) => [p.name, p]));
  const founded = f.companies.filter((c) => person.has(c.founder));
  const placed = f.people.filter((p) => f.towns.has(p.town));
  const out: Template[] = [];
  if (founded.length) {
    out.push((r) => {
      const c = pick(r, founded);
      const p = person.get(c.founder)!;
      return {
        problem: `Where was the founder of ${c.name} born?`,
        solution: `def solution():\n    founder = {${py(c.name)}: ${py(p.name)}}\n    born_in = {${py(p.name)}: ${py(p.town)}}\n    return born_in[founder[${py(c.name)}]]`,
      };
    });
  }
  if (founded.length > 1) {
    out.push((r) => {
      const [a, b] = [pick(r, founded), pick(r, founded)];
      return {
        problem: `Which company was founded first, ${a.name} or ${b.name}?`,
        solution: `def solution():\n    year = {${py(a.name)}: ${a.year}, ${py(b.name)}: ${b.year}}\n    a, b = ${py(a.name)}, ${py(b.name)}\n    if a == b or year[a] == year[b]:\n        raise ValueError("not a comparison")\n    return a if year[a] < year[b] else b`,
      };
    });
  }
  if (placed.length) {
    out.push((r) => {
      const p = pick(r, placed);
      return {
        problem: `In which country was the ${p.profession} ${p.name} born?`,
        solution: `def solution():\n    town = ${py(p.town)}\n    country = {town: ${py(f.towns.get(p.town)!)}}\n    return country[town]`,
      };
    });
  }
  if (f.people.length > 1) {
    out.push((r) => {
      const [a, b] = [pick(r, f.people), pick(r, f.people)];
      return {
        problem: `Who was born earlier, ${a.name} or ${b.name}?`,
        solution: `def solution():\n    born = {${py(a.name)}: ${a.year}, ${py(b.name)}: ${b.year}}\n    a, b = ${py(a.name)}, ${py(b.name)}\n    if a == b or born[a] == born[b]:\n        raise ValueError("not a comparison")\n    return a if born[a] < born[b] else b`,
      };
    });
  }
  return out;
}

/** HotpotQA-style questions over a world's paragraphs, answers looked up by the code. */
export function scriptedWorldGenerator(facts: WorldFacts, o: ScriptedGeneratorOptions): TaskGenerator {
  return new TemplateGenerator(`scripted:hotpotqa@seed${o.seed}`, worldTemplates(facts), o, true);
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
    id: `${describePolicy(o.policy)} hotpotqa-harness T=${o.temperature} max_tokens=${o.maxTokens} top_k=${o.topK} searches=${o.maxSearches} k=${o.tries} seed=${o.seed}`,
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

export const GEN_TASKS: EnvTaskGeneration = Object.freeze<EnvTaskGeneration>({
  scriptedGenerator: (o) => {
    const corpus = join(o.dataDir, "corpus.jsonl");
    if (!existsSync(corpus))
      throw new UserError(
        `--generator scripted --env hotpotqa writes questions from ${corpus}, which does not exist: run agent-lab prepare (or agent-lab demo) first, or pass --world DIR`,
      );
    return scriptedWorldGenerator(readWorldFacts(readJsonl<{ title: string; text: string }>(corpus)), {
      seed: o.seed,
      brokenShare: o.brokenShare,
    });
  },
  policySolver: (o) => {
    const prompt = loadSystemPrompt(o.config.systemPromptFile || undefined, {
      workspaceDir: o.workspaceDir,
      closedBook: false,
    });
    return harnessPolicySolver({
      policy: o.policy,
      tries: o.tries,
      temperature: o.temperature,
      seed: o.seed,
      // The search harness's episodes take the config's reply length, as the arms train with.
      maxTokens: o.config.maxTokens,
      searcher: openIndex(join(o.dataDir, "bm25")),
      systemPrompt: prompt.text,
      topK: o.config.topK,
      maxSearches: o.config.maxSearches,
    });
  },
});
