/**
 * Generic code names no environment: outside the environments' own folders (src/core/envs/<name>/),
 * no file in src/ may name one (hotpotqa, gsm8k, "hotpot"; any case) nor read a metric by its
 * record slot (`.em`, `.f1`, `em:`, `f1:`, "em", "f1") — consumers read the declared primary and
 * binary metrics (base/runs/metrics.ts), and an environment is found through the registry. A hit is
 * reported as file:line.
 *
 * NAMES_ALLOWED and SLOTS_ALLOWED hold the few files that must name one or the other, each with
 * why; a file may only do what its list allows, and a listed file that no longer does fails too
 * (take it off the list).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(__dirname, "../../src");
const ENV_NAMES = /hotpot|gsm8k/i;
const METRIC_SLOTS = /\.em\b|\.f1\b|\bem:|\bf1:|"em"|"f1"/;

/** Files that must name an environment (paths under src/). */
const NAMES_ALLOWED: Record<string, string> = {
  // None: the environment files naming none mean declares it in its info (impliedVersion), and the
  // config's default `env` is the catalog's first (envs/config.ts).
};

/** Files that must name a v1 record slot (paths under src/). */
const SLOTS_ALLOWED: Record<string, string> = {
  // Record-format compatibility: format-1 episode records' and summaries' em/f1 slots, named by the run's declared metrics.
  "core/base/runs/episode-v1.ts": "replaceV1Slots",
  // Record-format compatibility: an unknown environment's records read with the v1 slots' names.
  "core/base/runs/metrics.ts": "UNKNOWN_ENV_METRICS",
  // Report-format compatibility: format-1 ablation reports keyed the primary and binary roles' numbers f1 and em.
  "core/steps/ablate/report-v1.ts": "fromFormat1",
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith(".ts") ? [path] : [];
  });
}

/** An environment's own folder: src/core/envs/<name>/… (the catalog and registry beside them are generic). */
const inEnvFolder = (rel: string) => /^core\/envs\/[^/]+\//.test(rel);

/** The lines of `file` that `pattern` finds, as file:line: text. */
function hits(file: string, pattern: RegExp): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((text, i) =>
      pattern.test(text) ? [`src/${relative(SRC, file)}:${i + 1}: ${text.trim().slice(0, 100)}`] : [],
    );
}

/** Files outside the environments' folders in which `pattern` finds something, with the lines. */
function offenders(pattern: RegExp): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const rel = relative(SRC, file).split("\\").join("/");
    if (inEnvFolder(rel)) continue;
    const lines = hits(file, pattern);
    if (lines.length > 0) found.set(rel, lines);
  }
  return found;
}

describe("generic code names no environment", () => {
  const checks = [
    {
      what: "an environment",
      found: offenders(ENV_NAMES),
      allowed: NAMES_ALLOWED,
      hint: "name environments through the registry (a run's through its manifest, a workspace's through the config)",
    },
    {
      what: "a v1 metric slot",
      found: offenders(METRIC_SLOTS),
      allowed: SLOTS_ALLOWED,
      hint: "read metrics through their declarations (base/runs/metrics.ts)",
    },
  ];

  for (const { what, found, allowed, hint } of checks) {
    it(`no file outside the environments' folders names ${what}, except the allowed`, () => {
      assert.deepEqual(
        [...found].filter(([f]) => !(f in allowed)).flatMap(([, lines]) => lines),
        [],
        hint,
      );
    });

    it(`every file allowed to name ${what} still needs to be (one that names none is taken off the list)`, () => {
      assert.deepEqual(
        Object.keys(allowed).filter((f) => !found.has(f)),
        [],
      );
    });
  }
});
