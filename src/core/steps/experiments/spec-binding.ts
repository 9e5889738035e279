/**
 * Each run an experiment writes records the hash of the spec it ran under, in a small file of its
 * own (RUN_FILES.experimentSpec) rather than its manifest: a manifest field would enter the run's
 * resume fingerprint and an eval run's evaluator identity, which must not depend on the experiment.
 * `experiment validate` compares it for every arm run, so a rewritten spec.json cannot be rehashed
 * into the record and the experiment's manifest alone. Runs of earlier builds hold no such file.
 */
import { existsSync } from "node:fs";
import { writeJsonAtomic } from "../../base/util/atomic-write";
import { readJsonFile } from "../../base/runs/run-files";
import { runFile } from "../../base/runs/run-folder";

export interface SpecBinding {
  experiment: string;
  spec_sha256: string;
}

/** Records the spec's hash in a run the experiment wrote (a phase's run folder that exists: not every phase writes one). */
export function bindRunToSpec(runDir: string, binding: SpecBinding): void {
  if (existsSync(runFile(runDir, "manifest"))) writeJsonAtomic(runFile(runDir, "experimentSpec"), binding);
}

/** The spec hash a run recorded, or undefined for a run of an earlier build (or no experiment's). */
export function runSpecSha256(runDir: string): string | undefined {
  const b = readJsonFile<{ spec_sha256?: unknown }>(runFile(runDir, "experimentSpec"));
  if (b === undefined) return undefined;
  // A file there binds the run: one without a readable hash binds it to no spec (validate says which).
  return typeof b.spec_sha256 === "string" ? b.spec_sha256 : `(${JSON.stringify(b.spec_sha256) ?? "no hash"})`;
}
