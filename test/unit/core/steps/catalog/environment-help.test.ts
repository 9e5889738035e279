/**
 * Step help that speaks of environments is built from their info (specs/environment-help.ts): every
 * registered environment appears where its info says it belongs, and the one info member the help
 * relies on beyond the catalog's (`trainsOnTaskSets`) agrees with the environment's code.
 */
import assert from "node:assert/strict";
import { ENVIRONMENT_INFO, environmentInfo } from "../../../../../src/core/envs/catalog";
import { ENVIRONMENTS, WORLD_ENVIRONMENTS } from "../../../../../src/core/envs/registry";
import {
  EVAL_STEP,
  findStep,
  GEN_TASKS_STEP,
  GRADE_STEP,
  PIPELINE_STEP,
  PREPARE_STEP,
  SFT_DATA_STEP,
  TRAIN_GRPO_STEP,
} from "../../../../../src/core/steps/catalog/catalog";
import { stepHelp } from "../../../../../src/core/steps/specs/spec";
import { TASK_SET_ENVIRONMENTS } from "../../../../../src/core/steps/specs/environment-help";

describe("step help built from the environments' info", () => {
  it("--env names every registered environment with its summary's first clause", () => {
    for (const e of ENVIRONMENT_INFO) {
      assert.ok(EVAL_STEP.flags.env.help.includes(`${e.name} (${e.summary.split(";")[0].trim()})`), e.name);
    }
  });

  it("prepare lists every declared hub dataset, local format and file role", () => {
    for (const e of ENVIRONMENT_INFO) {
      const sources = e.prepareSources;
      if (!sources) continue;
      assert.ok(PREPARE_STEP.flags.hub.help.includes(`${sources.hub.repo} ${sources.hub.config}`), e.name);
      assert.ok(PREPARE_STEP.flags.train.help.includes(`${e.name}: ${sources.local.formats}`), e.name);
      for (const role of sources.local.roles) {
        const help = PREPARE_STEP.flags[role.flag].help;
        assert.ok(
          help.includes(`${e.name}: ${role.label.toLowerCase()}`) || role.flag === "train",
          `${e.name} ${role.flag}`,
        );
      }
    }
  });

  it("--train-tasks names the environments that train on tasks folders; gen-tasks defaults to the first", () => {
    assert.ok(TASK_SET_ENVIRONMENTS.length > 0);
    for (const help of [SFT_DATA_STEP.flags["train-tasks"].help, TRAIN_GRPO_STEP.flags["train-tasks"].help]) {
      assert.ok(help.startsWith(`${TASK_SET_ENVIRONMENTS.join(", ")}: `), help);
    }
    assert.equal(GEN_TASKS_STEP.flags.env.default, TASK_SET_ENVIRONMENTS[0]);
    assert.ok(environmentInfo(GEN_TASKS_STEP.flags.env.default)?.taskAnswerFormat);
  });

  it("an environment's info says trainsOnTaskSets exactly when its data reads a tasks folder", () => {
    for (const env of [...ENVIRONMENTS, ...WORLD_ENVIRONMENTS]) {
      assert.equal(
        Boolean(environmentInfo(env.name)?.trainsOnTaskSets),
        Boolean(env.data.loadTrainTasks),
        `envs/${env.name}: info's trainsOnTaskSets and data.loadTrainTasks disagree`,
      );
    }
  });

  it("gen-tasks' filters, grade's example and pipeline's worlds come from the catalog", () => {
    const genTasks = stepHelp(findStep("gen-tasks")!);
    for (const e of ENVIRONMENT_INFO.filter((i) => i.taskAnswerFormat)) {
      assert.match(genTasks, new RegExp(`non-(numeric|text) \\([^)]*\\b${e.name}\\b`), e.name);
    }
    assert.match(GRADE_STEP.summary, /grade --env \S+ FILE/);
    for (const name of PIPELINE_STEP.flags.env.choices.slice(1)) {
      assert.ok(stepHelp(findStep("pipeline")!).includes(`--env ${name}: `), name);
    }
    assert.ok(stepHelp(findStep("experiment")!).includes("run, "));
  });
});
