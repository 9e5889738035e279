/**
 * A sweep: one arm of a spec (the template) expanded into one arm per point of a grid of recipe
 * values (`"grid": {"grpo.lr": [1e-3, 4e-3], "grpo.group": [2, 4]}`) or of a list of overrides
 * (`"arms": [{"grpo.lr": 1e-3}, {"name": "hot", "grpo.temperature": 1.5}]`). Each expanded arm is
 * a normal arm of the experiment, named from its values (`grpo_lr1e-3_g4`: short, stable, safe as a
 * folder name), so every phase, record field and check of an experiment applies to it unchanged.
 * The spec's other arms stay as written; `baseline` names the arm (or "base") the sweep's arms are
 * ranked against; `max_concurrent_arms` is how many arms train at once.
 */
import { GRPO_RANGES, OFFSET_RANGE, SFT_RANGES, inRange, rangeText, type NumberRange } from "./recipe-ranges";
import type { ArmSpec } from "./spec";

/** More arms than this in one sweep is refused: split it (each arm trains and is evaluated in full). */
export const SWEEP_MAX_ARMS = 32;
/** The most arms a sweep trains at once (each its own training client). */
export const SWEEP_MAX_CONCURRENT = 16;
/** An arm's name: it names the arm's run folders (spec.ts checks a written one with the same rule). */
export const ARM_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,30}$/;

/** A recipe value a sweep may vary: where it sits in an arm, its short name in arm names, its range, its manifest field. */
export interface SweepParam {
  section: "grpo" | "sft" | "data";
  field: string;
  short: string;
  range: NumberRange;
  /** The field of the arm's training run's manifest that records it (validate reads it back). */
  manifest: string;
}

export const SWEEP_PARAMS: Readonly<Record<string, SweepParam>> = Object.freeze({
  "grpo.lr": { section: "grpo", field: "lr", short: "lr", range: GRPO_RANGES.lr, manifest: "lr" },
  "grpo.group": { section: "grpo", field: "group", short: "g", range: GRPO_RANGES.group, manifest: "group" },
  "grpo.steps": { section: "grpo", field: "steps", short: "steps", range: GRPO_RANGES.steps, manifest: "steps" },
  "grpo.questions": {
    section: "grpo",
    field: "questions",
    short: "q",
    range: GRPO_RANGES.questions,
    manifest: "questions_per_step",
  },
  "grpo.temperature": {
    section: "grpo",
    field: "temperature",
    short: "temp",
    range: GRPO_RANGES.temperature,
    manifest: "temperature",
  },
  "grpo.seed": { section: "grpo", field: "seed", short: "seed", range: GRPO_RANGES.seed, manifest: "seed" },
  "sft.lr": { section: "sft", field: "lr", short: "sftlr", range: SFT_RANGES.lr, manifest: "lr" },
  "sft.epochs": { section: "sft", field: "epochs", short: "ep", range: SFT_RANGES.epochs, manifest: "epochs" },
  "sft.batch": { section: "sft", field: "batch", short: "bs", range: SFT_RANGES.batch, manifest: "batch" },
  "data.offset": { section: "data", field: "offset", short: "off", range: OFFSET_RANGE, manifest: "offset" },
});

export interface SweepPoint {
  /** The expanded arm's name. */
  name: string;
  /** Each swept parameter's value at this point (by its path, "grpo.lr"). */
  values: Record<string, number>;
}

export interface SweepSpec {
  /** The template arm, as written in `arms`. */
  arm: string;
  /** "base" or an arm the sweep's arms are compared with. */
  baseline: string;
  max_concurrent_arms: number;
  /** The swept parameters, in the order the spec gives them. */
  params: string[];
  points: SweepPoint[];
}

/**
 * A value as an arm name writes it: integers as they are, small or large numbers in exponent form
 * (1e-5, 4e-3), others with "p" for the point (0p5), so the name stays a folder name.
 */
export function sweepValueText(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e6) return String(v);
  const a = Math.abs(v);
  const text = a !== 0 && (a < 0.01 || a >= 1e6) ? v.toExponential().replace("e+", "e") : String(v);
  return text.replace(".", "p");
}

/** An expanded arm's name: the template's, then each parameter's short name and value, joined by "_". */
export function sweepArmName(template: string, params: readonly string[], values: Record<string, number>): string {
  return [template, ...params.map((p) => `${SWEEP_PARAMS[p].short}${sweepValueText(values[p])}`)].join("_");
}

/** The template arm with a point's values in its recipe, under the point's name. */
export function applySweepPoint(template: ArmSpec, point: SweepPoint): ArmSpec {
  const arm: ArmSpec = structuredClone(template);
  arm.name = point.name;
  for (const [path, v] of Object.entries(point.values)) {
    const p = SWEEP_PARAMS[path];
    const section = (p.section === "data" ? arm.data : arm[p.section]) as unknown as Record<string, number>;
    section[p.field] = v;
  }
  return arm;
}

/** The points of a grid, the last parameter varying fastest (so names and order are stable). */
export function gridPoints(grid: Record<string, readonly number[]>): Record<string, number>[] {
  let points: Record<string, number>[] = [{}];
  for (const [param, values] of Object.entries(grid))
    points = points.flatMap((pt) => values.map((v) => ({ ...pt, [param]: v })));
  return points;
}

/** What the spec's reader gives the sweep's parser: its refusal (file:line, the field) and its object check. */
export interface SweepReader {
  fail(path: string, problem: string): never;
  obj(v: unknown, path: string): Record<string, unknown>;
  known(o: Record<string, unknown>, path: string, keys: readonly string[]): void;
}

/**
 * Reads `sweep` against the arms as written and returns it with its points; every refusal is one
 * line naming the field. The caller replaces the template arm by `expandSweep`'s arms.
 */
export function parseSweep(r: SweepReader, raw: unknown, arms: readonly ArmSpec[]): SweepSpec {
  const o = r.obj(raw, "sweep");
  r.known(o, "sweep", ["arm", "grid", "arms", "baseline", "max_concurrent_arms"]);
  if (typeof o.arm !== "string" || !o.arm.trim())
    r.fail("sweep.arm", `must name the arm the sweep varies (arms: ${arms.map((a) => a.name).join(", ")})`);
  const found = arms.find((a) => a.name === o.arm);
  if (!found) r.fail("sweep.arm", `"${o.arm}" is not an arm (arms: ${arms.map((a) => a.name).join(", ")})`);
  const template: ArmSpec = found;
  const value = (v: unknown, path: string, param: string): number => {
    const range = SWEEP_PARAMS[param].range;
    if (!inRange(v, range)) r.fail(path, `must be ${rangeText(range)}, got ${JSON.stringify(v)}`);
    return v;
  };
  const param = (key: string, path: string): string => {
    const p = SWEEP_PARAMS[key];
    if (!p) r.fail(path, `unknown parameter (a sweep varies ${Object.keys(SWEEP_PARAMS).join(", ")})`);
    const has = p.section === "data" ? template.data?.kind === "env-train" : template[p.section] !== undefined;
    if (!has)
      r.fail(
        path,
        p.section === "data"
          ? `arm "${template.name}" does not train on its environment's train split ("data": {"kind": "env-train"}), so it has no offset to vary`
          : `arm "${template.name}" has no "${p.section}" recipe to vary`,
      );
    return key;
  };
  if ((o.grid === undefined) === (o.arms === undefined))
    r.fail("sweep", 'gives either "grid" (values per parameter, every combination) or "arms" (a list of overrides)');
  let params: string[];
  let points: SweepPoint[];
  if (o.grid !== undefined) {
    const g = r.obj(o.grid, "sweep.grid");
    params = Object.keys(g).map((k) => param(k, `sweep.grid.${k}`));
    if (params.length === 0) r.fail("sweep.grid", 'must give at least one parameter, e.g. {"grpo.lr": [0.001, 0.004]}');
    const grid: Record<string, number[]> = {};
    for (const k of params) {
      const list = g[k];
      if (!Array.isArray(list) || list.length === 0)
        r.fail(`sweep.grid.${k}`, "must list at least one value, e.g. [0.001, 0.004]");
      grid[k] = list.map((v, i) => value(v, `sweep.grid.${k}[${i}]`, k));
      const twice = grid[k].find((v, i) => grid[k].indexOf(v) !== i);
      if (twice !== undefined) r.fail(`sweep.grid.${k}`, `lists ${twice} twice`);
    }
    const count = params.reduce((n, k) => n * grid[k].length, 1);
    if (count > SWEEP_MAX_ARMS)
      r.fail(
        "sweep.grid",
        `${params.map((k) => grid[k].length).join(" × ")} = ${count} arms, over the ${SWEEP_MAX_ARMS} one sweep may run: drop values or split the sweep`,
      );
    points = gridPoints(grid).map((values) => ({ name: sweepArmName(template.name, params, values), values }));
  } else {
    if (!Array.isArray(o.arms) || o.arms.length === 0)
      r.fail("sweep.arms", 'must list at least one arm\'s overrides, e.g. [{"grpo.lr": 0.001}]');
    if (o.arms.length > SWEEP_MAX_ARMS)
      r.fail(
        "sweep.arms",
        `lists ${o.arms.length} arms, over the ${SWEEP_MAX_ARMS} one sweep may run: split the sweep`,
      );
    const seen: string[] = [];
    const given = (o.arms as unknown[]).map((a, i) => {
      const path = `sweep.arms[${i}]`;
      const ov = r.obj(a, path);
      const keys = Object.keys(ov).filter((k) => k !== "name");
      if (keys.length === 0) r.fail(path, 'must give at least one parameter, e.g. {"grpo.lr": 0.001}');
      const values: Record<string, number> = {};
      for (const k of keys) values[param(k, `${path}.${k}`)] = value(ov[k], `${path}.${k}`, k);
      for (const k of keys) if (!seen.includes(k)) seen.push(k);
      if (ov.name !== undefined && (typeof ov.name !== "string" || !ARM_NAME.test(ov.name)))
        r.fail(
          `${path}.name`,
          "must be letters, digits, '_' or '-' (it names the arm's run folder), at most 31 characters",
        );
      return { name: ov.name as string | undefined, values };
    });
    params = seen;
    points = given.map((g) => ({
      name:
        g.name ??
        sweepArmName(
          template.name,
          params.filter((k) => k in g.values),
          g.values,
        ),
      values: g.values,
    }));
  }
  const where = o.grid !== undefined ? "sweep.grid" : "sweep.arms";
  const others = arms.filter((a) => a !== template).map((a) => a.name);
  points.forEach((pt, i) => {
    if (!ARM_NAME.test(pt.name))
      r.fail(
        where,
        `the arm name "${pt.name}" made from its values is over 31 characters: shorten arm "${template.name}"'s name${o.arms !== undefined ? ` or give sweep.arms[${i}] a "name"` : ""}`,
      );
    if (others.includes(pt.name) || pt.name === "base" || points.findIndex((q) => q.name === pt.name) !== i)
      r.fail(
        where,
        `two arms would be named "${pt.name}": give ${o.arms !== undefined ? 'each a "name"' : "values that differ"}`,
      );
  });
  const names = [...others, ...points.map((pt) => pt.name)];
  let baseline = "base";
  if (o.baseline !== undefined) {
    if (typeof o.baseline !== "string" || (o.baseline !== "base" && !names.includes(o.baseline)))
      r.fail(
        "sweep.baseline",
        `must be "base" or an arm (arms: ${names.join(", ")}), got ${JSON.stringify(o.baseline)}`,
      );
    baseline = o.baseline;
  }
  let concurrent = 1;
  if (o.max_concurrent_arms !== undefined) {
    const range = { int: true, min: 1, max: SWEEP_MAX_CONCURRENT };
    if (!inRange(o.max_concurrent_arms, range))
      r.fail("sweep.max_concurrent_arms", `must be ${rangeText(range)}, got ${JSON.stringify(o.max_concurrent_arms)}`);
    concurrent = o.max_concurrent_arms;
  }
  return { arm: template.name, baseline, max_concurrent_arms: concurrent, params, points };
}

/** The arms with the template replaced, in its place, by one arm per point. */
export function expandSweep(arms: readonly ArmSpec[], sweep: SweepSpec): ArmSpec[] {
  return arms.flatMap((a) => (a.name === sweep.arm ? sweep.points.map((pt) => applySweepPoint(a, pt)) : [a]));
}

/** The names of the sweep's own arms (the expanded ones), in order. */
export const sweepArms = (sweep: SweepSpec): string[] => sweep.points.map((p) => p.name);
