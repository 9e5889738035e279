/**
 * Chat with a model (the base model or any checkpoint) in an environment, a turn at a time: the
 * environment's system prompt and tools, a question typed or picked from a split, each model turn
 * sampled with its own temperature and token limit through the harness's one episode loop
 * (harness/interactive.ts), tool calls run by the environment, the cost of each turn at the
 * ledger's prices, and "Save as episode": the finished episode written as a one-episode eval run,
 * by eval's own writer, so compare, failure labels, show and sft-data read it as any eval.
 *
 * A typed question has no gold answer: its run's split is TYPED_QUESTIONS and its episode carries
 * no answers (unscored). A question picked from a split keeps its gold answers and is scored.
 */
import { isAbsolute, join } from "node:path";
import type { AgentLabConfig } from "../../base/config";
import type { Split } from "../../base/data/question";
import { UserError } from "../../base/errors";
import { costUsd } from "../../base/ledger";
import {
  PLAYGROUND_FIELD,
  sha256Hex,
  TYPED_QUESTIONS,
  type PlaygroundManifestField,
  type RunManifest,
} from "../../base/runs/manifest";
import { metricRoles } from "../../base/runs/metrics";
import { checkRunName } from "../../base/runs/run-name";
import { isRunFolder } from "../../base/runs/run-folder";
import type { EpisodeRecord } from "../../base/runs/run-files";
import type { ModelPrices } from "../../base/config";
import { environmentPrompt, type EnvironmentPrompt } from "../../envs/prompt";
import type { EnvItem, EnvRun, Environment, ToolDeclaration } from "../../harness/environment";
import { InteractiveEpisode, type Transcript, type TurnSettings } from "../../harness/interactive";
import type { Policy, PolicyInfo } from "../../harness/policy";
import { makePolicy } from "../eval/backends";
import { episodeUsd, pricesForPolicy } from "../eval/cost";
import { evalManifest, resolveEnvironment, splitRecord, toRecord } from "../eval/eval-split";
import { runEval } from "../eval/run-eval";
import type { PolicyChoice } from "../specs/step-context";
import { checkTurnSettings, checkTypedQuestion, type TurnSettingsInput } from "./turn-settings";

/** The splits a question may be picked from: the test split is opened once, at the end, never here. */
export const PLAYGROUND_SPLITS = ["val", "train"] as const satisfies readonly Split[];
export type PlaygroundSplit = (typeof PLAYGROUND_SPLITS)[number];

/** The command a saved episode's manifest records as its job (not part of the fingerprint). */
export const PLAYGROUND_COMMAND = "playground";

/** A question typed by the user, or an item of a split (scored against its gold answers). */
export type PlaygroundQuestion = { typed: string } | { split: string; id: string };

export interface PlaygroundOptions extends PolicyChoice {
  workspaceDir: string;
  /** Settings with overrides merged. */
  config: AgentLabConfig;
  /** The environment (default: the config's). */
  env?: string | Environment<EnvItem>;
  /** System prompt file (default: the config's, else the environment's shipped one). */
  promptFile?: string;
  /** A ready policy instead of one built from `backend` (tests). */
  policy?: Policy;
}

/** One turn as the playground reports it: what it cost, and whether the environment ended the episode. */
export interface PlaygroundTurn {
  kind: "turn" | "cancelled";
  prefill: number;
  generated: number;
  usd: number;
  done: boolean;
}

const inWorkspace = (workspaceDir: string, p: string) => (isAbsolute(p) ? p : join(workspaceDir, p));

export class Playground {
  private episodes = new Set<PlaygroundEpisode>();

  private constructor(
    private readonly o: PlaygroundOptions,
    readonly env: Environment<EnvItem>,
    readonly policy: Policy,
    readonly prompt: EnvironmentPrompt,
    readonly prices: ModelPrices | null,
    private readonly envRun: EnvRun<EnvItem>,
    private readonly dataDir: string,
  ) {}

  /** Opens the environment and the model; a bad prompt file or an unpriced model is refused first. */
  static async open(o: PlaygroundOptions): Promise<Playground> {
    const env = resolveEnvironment(o.env, o.config);
    const dataDir = env.data.dir(inWorkspace(o.workspaceDir, o.config.dataDir));
    const prompt = environmentPrompt(env, {
      promptFile: o.promptFile,
      config: o.config,
      workspaceDir: o.workspaceDir,
      closedBook: false,
    });
    const policy = o.policy ?? (await makePolicy({ ...o, env }));
    try {
      const prices = pricesForPolicy(o.config, policy.describe());
      const envRun = await env.open({ workspaceDir: o.workspaceDir, config: o.config, dataDir, closedBook: false });
      return new Playground(o, env, policy, prompt, prices, envRun, dataDir);
    } catch (e) {
      policy.close?.();
      throw e;
    }
  }

  get tools(): readonly ToolDeclaration[] {
    return this.env.tools;
  }

  /** A turn's settings until the user changes them: eval's (greedy, the config's token limit). */
  get defaults(): TurnSettings {
    return { temperature: 0, maxTokens: this.o.config.maxTokens };
  }

  get model(): PolicyInfo {
    return this.policy.describe();
  }

  /** A split's items, to pick a question from (the test split is refused). */
  items(split: string): EnvItem[] {
    return this.env.data.load(this.dataDir, playgroundSplit(split));
  }

  /** Starts an episode on a question (nothing is sampled until its first turn). */
  start(question: PlaygroundQuestion): PlaygroundEpisode {
    let item: EnvItem;
    let split: RunManifest["split"];
    if ("typed" in question) {
      const text = checkTypedQuestion(question.typed);
      // Named by its text, so the same typed question is the same item in every run that asks it.
      item = { id: `typed-${sha256Hex(text).slice(0, 12)}`, question: text, answers: [] };
      split = { name: TYPED_QUESTIONS, file: "", sha256: sha256Hex(text) };
    } else {
      const name = playgroundSplit(question.split);
      const found = this.items(name).find((i) => i.id === question.id);
      if (!found)
        throw new UserError(`no item "${question.id}" in the ${this.env.name} ${name} split: pick one from the list`);
      item = found;
      split = splitRecord(this.dataDir, name);
    }
    const episode = new PlaygroundEpisode(
      this,
      item,
      split,
      new InteractiveEpisode(
        this.policy,
        item,
        this.envRun.start(item, { tokenizer: this.policy.tokenizer, systemPrompt: this.prompt.text }),
      ),
    );
    this.episodes.add(episode);
    return episode;
  }

  /** The manifest a saved episode's run carries: eval's, with the playground's per-turn settings. */
  manifestFor(split: RunManifest["split"], turns: readonly TurnSettings[]): RunManifest {
    const first = turns[0];
    const manifest = evalManifest({
      env: this.env,
      envRun: this.envRun,
      split,
      prompt: this.prompt,
      policy: this.policy.describe(),
      tokenizer: this.policy.tokenizer.name,
      sampling: { temperature: first.temperature, max_tokens: first.maxTokens },
      job: { command: [PLAYGROUND_COMMAND], created: new Date().toISOString(), concurrency: 1 },
    });
    // Each turn's own settings: the run differs from an eval's fingerprint when they do.
    const field: PlaygroundManifestField = {
      turns: turns.map((t) => ({ temperature: t.temperature, max_tokens: t.maxTokens })),
    };
    manifest[PLAYGROUND_FIELD] = field;
    return manifest;
  }

  /** Where a saved episode's run goes; a name that holds a run already is refused. */
  runDirFor(name: string): string {
    checkRunName(name);
    const runDir = join(inWorkspace(this.o.workspaceDir, this.o.config.runsDir), name);
    if (isRunFolder(runDir)) throw new UserError(`${runDir} already holds a run: save the episode under another name`);
    return runDir;
  }

  /** Ends every episode in flight and releases the model. */
  close(): void {
    for (const e of this.episodes) e.close();
    this.episodes.clear();
    this.policy.close?.();
  }
}

/** A split a question may be picked from; the test split and unknown names are refused. */
function playgroundSplit(split: string): PlaygroundSplit {
  if (split === "test")
    throw new UserError(
      "the playground does not open the test split (it is opened once, at the end): pick val or train",
    );
  if (!(PLAYGROUND_SPLITS as readonly string[]).includes(split))
    throw new UserError(`unknown split "${split}": pick one of ${PLAYGROUND_SPLITS.join(", ")}`);
  return split as PlaygroundSplit;
}

export class PlaygroundEpisode {
  private readonly settings: TurnSettings[] = [];
  readonly turnCosts: PlaygroundTurn[] = [];

  constructor(
    private readonly playground: Playground,
    readonly item: EnvItem,
    private readonly split: RunManifest["split"],
    private readonly driver: InteractiveEpisode,
  ) {}

  get scored(): boolean {
    return this.split.name !== TYPED_QUESTIONS;
  }

  get done(): boolean {
    return this.driver.episode !== undefined;
  }

  transcript(): Transcript {
    return this.driver.transcript();
  }

  /** The most the next turn can cost: the whole conversation sent, `maxTokens` sampled. */
  estimateNextUsd(maxTokens: number): number {
    const t = this.driver.transcript();
    return costUsd(this.playground.prices, { prefill: t.prompt.length + t.tokens.length, sampled: maxTokens });
  }

  /** Samples the next model turn (settings checked first); the environment runs any tool call it makes. */
  async next(input: TurnSettingsInput): Promise<PlaygroundTurn> {
    const settings = checkTurnSettings(input);
    const r = await this.driver.next(settings);
    if (r.kind === "cancelled") return { kind: "cancelled", prefill: 0, generated: 0, usd: 0, done: false };
    this.settings.push(settings);
    const turn: PlaygroundTurn = {
      kind: "turn",
      prefill: r.prefill,
      generated: r.generated,
      usd: costUsd(this.playground.prices, { prefill: r.prefill, sampled: r.generated }),
      done: r.episode !== undefined,
    };
    this.turnCosts.push(turn);
    return turn;
  }

  cancel(): void {
    this.driver.cancel();
  }

  close(): void {
    this.driver.close();
  }

  /**
   * The episode so far as a record the trace view reads: the finished one's, or the turns so far
   * (end "running", nothing scored yet).
   */
  viewRecord(): EpisodeRecord {
    if (this.done) return this.record();
    const t = this.driver.transcript();
    const usd = this.turnCosts.reduce((sum, c) => sum + c.usd, 0);
    const record = toRecord(
      {
        id: this.item.id,
        question: this.item.question,
        answers: [...this.item.answers],
        prompt: [...t.prompt],
        tokens: [...t.tokens],
        sampled: [...t.sampled],
        logprobs: [...t.logprobs],
        hasLogprobs: true,
        searches: t.turns.flatMap((x) => (x.query !== undefined ? [x.query] : [])),
        answer: "",
        end: "no_action",
        prefill: this.turnCosts.reduce((sum, c) => sum + c.prefill, 0),
        generated: this.turnCosts.reduce((sum, c) => sum + c.generated, 0),
        reward: 0,
        metrics: {},
        turns: [...t.turns],
      },
      usd,
    );
    return { ...record, end: "running" };
  }

  /** The finished episode as eval's record (same writer, same bytes for the same tokens). */
  record(): EpisodeRecord {
    const ep = this.driver.episode;
    if (!ep) throw new UserError("the episode has not ended yet: run turns until the environment ends it, then save");
    return toRecord(ep, episodeUsd(this.playground.prices, ep.prefill, ep.generated));
  }

  /** Writes the finished episode as a one-episode eval run `<runsDir>/<name>`; refuses an existing name. */
  async save(name: string): Promise<string> {
    const runDir = this.playground.runDirFor(name);
    const record = this.record();
    const manifest = this.playground.manifestFor(this.split, this.settings);
    const env = this.playground.env;
    const info = this.playground.policy.describe();
    await runEval({
      runDir,
      questions: [this.item],
      manifest,
      systemPrompt: this.playground.prompt.text,
      resume: false,
      concurrency: 1,
      split: this.split.name,
      model: info.model,
      checkpoint: info.checkpoint,
      // Already spent (each turn was priced as it ran): recorded in the run's ledger, never capped.
      cost: { prices: this.playground.prices, budgetUsd: 0 },
      metric: metricRoles(env.metrics).primary.name,
      metricLabel: metricRoles(env.metrics).primary.label,
      metrics: env.metrics,
      runQuestion: () => Promise.resolve(record),
    });
    return runDir;
  }
}
