/**
 * Generic code names no environment: outside the environments' own folders (src/core/envs/<name>/),
 * no file in src/ may name one (hotpotqa, gsm8k, "hotpot"; any case) nor read a metric by its
 * record slot (`.em`, `.f1`, `em:`, `f1:`, "em", "f1") — consumers read the declared primary and
 * binary metrics (base/runs/metrics.ts), and an environment is found through the registry. A hit is
 * reported as file:line.
 *
 * ALLOWED holds the few files that must name them, each with why; a listed file that no longer
 * names one fails too (take it off the list).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(__dirname, "../../src");
const ENV_NAMES = /hotpot|gsm8k/i;
const METRIC_SLOTS = /\.em\b|\.f1\b|\bem:|\bf1:|"em"|"f1"/;

/** Files that must name an environment or a v1 slot (paths under src/). */
const ALLOWED: Record<string, string> = {
  // The recipe's first environment: files from before environments existed mean it, and it is the config's
  // default `env`; base/ cannot ask the catalog in envs/.
  "core/base/first-environment.ts": "FIRST_ENVIRONMENT",
  // Record-format compatibility: what format-1 episode records' em/f1 slots held, per environment that wrote them.
  "core/base/runs/episode-v1.ts": "V1_SLOTS",
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

function hits(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((text, i) =>
      ENV_NAMES.test(text) || METRIC_SLOTS.test(text)
        ? [`src/${relative(SRC, file)}:${i + 1}: ${text.trim().slice(0, 100)}`]
        : [],
    );
}

describe("generic code names no environment", () => {
  const offenders = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const rel = relative(SRC, file).split("\\").join("/");
    if (inEnvFolder(rel)) continue;
    const found = hits(file);
    if (found.length > 0) offenders.set(rel, found);
  }

  it("no file outside the environments' folders names one, except the allowed", () => {
    assert.deepEqual(
      [...offenders].filter(([f]) => !(f in ALLOWED)).flatMap(([, lines]) => lines),
      [],
      "name environments through the registry and metrics through their declarations (base/runs/metrics.ts)",
    );
  });

  it("every allowed file still needs to be (one that names none is taken off the list)", () => {
    assert.deepEqual(
      Object.keys(ALLOWED).filter((f) => !offenders.has(f)),
      [],
    );
  });
});
