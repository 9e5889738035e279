/**
 * Writes a tinker-cookbook `log_path` folder the way the cookbook's own writers lay it out
 * (ml_log's config.json and metrics.jsonl, checkpoint_utils' checkpoints.jsonl, rl/train.py's
 * iteration_NNNNNN/ rollout summaries and logtree JSON), built from the documented format — no file
 * copied from the cookbook. Rewards are seeded, so group health and the last reward are known.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface CookbookFixtureOptions {
  steps?: number;
  groups?: number;
  groupSize?: number;
  /** Save a checkpoint every this many steps (and a final one). */
  saveEvery?: number;
  model?: string;
  /** Questions the logtree conversations ask (one per group). */
  questions?: string[];
  /** An eval split's rollouts beside the train ones (eval_<name>_rollout_summaries.jsonl). */
  evalName?: string;
  /** config.json as written (default: a few top-level fields, no dataset builder); its `log_path` set to the folder. */
  config?: Record<string, unknown>;
  /** The rollouts' tags (default ["hotpotqa"]). */
  tags?: string[];
}

/**
 * config.json as the cookbook's ml_log writes it for its math_rl recipe (`python -m
 * tinker_cookbook.recipes.math_rl.train env=<env>`): its RL train Config dumped field by field, the
 * dataset builder as its own fields (chz writes no class name), the run named "<env>-<model>-…"
 * in wandb_name and log_path, recipe_name "recipe_math_rl". Written from the cookbook's documented
 * config fields, not copied from a run.
 */
export function cookbookMathConfig(env: string, model = "meta-llama/Llama-3.1-8B-Instruct"): Record<string, unknown> {
  const runName = `${env}-${model.replace("/", "-")}-32rank-1e-05lr-4group-100batch-importance_sampling-seed0-2026-12-01-10-00`;
  return {
    learning_rate: 1e-5,
    dataset_builder: {
      batch_size: 100,
      model_name_for_tokenizer: model,
      renderer_name: "llama3",
      group_size: 4,
      convo_prefix: "standard",
      seed: 0,
    },
    model_name: model,
    recipe_name: "recipe_math_rl",
    renderer_name: "llama3",
    lora_rank: 32,
    max_tokens: 256,
    temperature: 1.0,
    wandb_project: null,
    wandb_name: runName,
    // writeCookbookRun sets log_path to the folder it writes (the cookbook records where it logged).
    log_path: runName,
    base_url: null,
    load_checkpoint_path: null,
    compute_post_kl: false,
    kl_penalty_coef: 0.0,
    num_substeps: 1,
    eval_every: 20,
    save_every: 20,
    num_groups_to_log: 4,
    async_config: null,
    stream_minibatch_config: null,
    loss_fn: "importance_sampling",
    loss_fn_config: null,
    max_steps: null,
  };
}

export interface CookbookFixture {
  dir: string;
  /** Mean total reward logged at each step (env/all/reward/total). */
  rewards: number[];
  /** Per iteration, per group: the trajectories' total rewards. */
  groupRewards: number[][][];
  checkpoints: { name: string; batch: number; final: boolean; state_path: string; sampler_path: string }[];
}

/** Deterministic rewards in {0, 0.5, 1}: group g of step s is all-good, all-bad or mixed by pattern. */
function reward(step: number, group: number, traj: number): number {
  const kind = (step + group) % 3;
  if (kind === 0) return 1;
  if (kind === 1) return 0;
  return traj % 2 === 0 ? 1 : traj % 3 === 0 ? 0.5 : 0;
}

const pad = (n: number) => String(n).padStart(6, "0");

export function writeCookbookRun(dir: string, o: CookbookFixtureOptions = {}): CookbookFixture {
  const steps = o.steps ?? 6;
  const groups = o.groups ?? 4;
  const size = o.groupSize ?? 4;
  const saveEvery = o.saveEvery ?? 3;
  const model = o.model ?? "Qwen/Qwen3-8B";
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify(
      o.config
        ? { ...o.config, log_path: dir }
        : {
            log_path: dir,
            model_name: model,
            learning_rate: 4e-5,
            groups_per_batch: groups,
            group_size: size,
            max_tokens: 1024,
            lora_rank: 32,
            eval_every: saveEvery,
            save_every: saveEvery,
          },
      null,
      2,
    ),
  );
  const rewards: number[] = [];
  const groupRewards: number[][][] = [];
  const metrics: string[] = [];
  const checkpoints: CookbookFixture["checkpoints"] = [];
  for (let s = 0; s < steps; s++) {
    const byGroup = Array.from({ length: groups }, (_, g) => Array.from({ length: size }, (_, t) => reward(s, g, t)));
    groupRewards.push(byGroup);
    const all = byGroup.flat();
    const mean = all.reduce((a, b) => a + b, 0) / all.length;
    rewards.push(mean);
    const good = byGroup.filter((g) => g.every((r) => r >= 0.5 && r === g[0]) && g[0] === 1).length;
    const bad = byGroup.filter((g) => g.every((r) => r === 0)).length;
    metrics.push(
      JSON.stringify({
        step: s,
        "env/all/reward/total": mean,
        "env/all/by_group/frac_all_good": good / groups,
        "env/all/by_group/frac_all_bad": bad / groups,
        "env/all/by_group/frac_mixed": (groups - good - bad) / groups,
        "env/all/ac_tokens_per_turn": 180 + 7 * s,
        "optim/kl_sample_train_v1": 0.0012 + 0.0001 * s,
        "optim/lr": 4e-5,
        "progress/done_frac": (s + 1) / steps,
        "time/total": 31.5 + s,
        "time/sampling": 22.25,
      }),
    );
    const iter = join(dir, `iteration_${pad(s)}`);
    mkdirSync(iter, { recursive: true });
    const summaries = byGroup.flatMap((g, gi) =>
      g.map((r, ti) =>
        JSON.stringify({
          schema_version: 1,
          split: "train",
          iteration: s,
          group_idx: gi,
          traj_idx: ti,
          tags: o.tags ?? ["hotpotqa"],
          sampling_client_step: s,
          total_reward: r,
          final_reward: r,
          trajectory_metrics: {},
          steps: [
            {
              step_idx: 0,
              ob_len: 412,
              ac_len: 96,
              reward: r,
              episode_done: true,
              stop_reason: "stop",
              metrics: { format: 1 },
              logs: {},
            },
          ],
          final_ob_len: 508,
        }),
      ),
    );
    writeFileSync(join(iter, "train_rollout_summaries.jsonl"), summaries.join("\n") + "\n");
    if (o.evalName && s % saveEvery === 0) {
      writeFileSync(
        join(iter, `eval_${o.evalName}_rollout_summaries.jsonl`),
        summaries.slice(0, size).join("\n") + "\n",
      );
    }
    const question = (g: number) => o.questions?.[g % o.questions.length] ?? `Question ${g} of step ${s}?`;
    const conversation = (g: number) => ({
      tag: "div",
      attrs: { class: "lt-conversation" },
      children: [],
      data: {
        type: "conversation",
        messages: [
          { role: "user", content: question(g) },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "…" },
              { type: "text", text: `<answer>guess ${g}</answer>` },
            ],
          },
        ],
      },
    });
    const logtree = {
      title: `RL iteration ${s}`,
      started_at: "2026-11-30T10:00:00",
      path: join(iter, "train.html"),
      root: {
        tag: "body",
        attrs: {},
        children: [
          { tag: "h2", attrs: { class: "lt-h2" }, children: [`Step ${s}`] },
          {
            tag: "section",
            attrs: { class: "lt-section" },
            children: [
              "<p>html-only text</p>",
              ...Array.from({ length: Math.min(groups, 2) }, (_, g) => conversation(g)),
            ],
          },
        ],
      },
    };
    writeFileSync(join(iter, "train_logtree.json"), JSON.stringify(logtree, null, 2));
    const final = s === steps - 1;
    if ((s + 1) % saveEvery === 0 || final) {
      const name = final ? "final" : pad(s + 1);
      const c = {
        name,
        batch: s + 1,
        final,
        state_path: `tinker://run-cb/weights/${name}`,
        sampler_path: `tinker://run-cb/sampler_weights/${name}`,
      };
      if (!checkpoints.some((x) => x.name === name)) checkpoints.push(c);
    }
  }
  writeFileSync(join(dir, "metrics.jsonl"), metrics.join("\n") + "\n");
  writeFileSync(
    join(dir, "checkpoints.jsonl"),
    checkpoints.map((c) => JSON.stringify({ ...c, epoch: 0 })).join("\n") + "\n",
  );
  return { dir, rewards, groupRewards, checkpoints };
}
