/**
 * validation.json: what the last `agent-lab experiment validate` found, kept beside the record so
 * the views show every check with its reason without running the validator themselves. It names the
 * record's sha256 it checked: once the record is rewritten (a resume, a rerun) it no longer applies.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { sha256File } from "../../base/runs/manifest";
import { readJsonFile } from "../../base/runs/run-files";
import { writeJsonAtomic } from "../../base/util/atomic-write";
import { EXPERIMENT_FILES } from "./record";
import type { ValidationResult } from "./validate";

export const VALIDATION_FILE = "validation.json";
export const VALIDATION_FORMAT = "agent-lab.experiment-validation/1";

export interface ValidationFile extends ValidationResult {
  format: string;
  /** sha256 of the experiment.json these checks were run on. */
  record_sha256: string;
  validated: string;
}

export function writeValidationFile(recordDir: string, result: ValidationResult): void {
  const file: ValidationFile = {
    format: VALIDATION_FORMAT,
    record_sha256: sha256File(join(recordDir, EXPERIMENT_FILES.record)),
    validated: new Date().toISOString(),
    ...result,
  };
  writeJsonAtomic(join(recordDir, VALIDATION_FILE), file);
}

/** The last validation of the record as it is now; undefined when there is none or the record changed since. */
export function readValidationFile(recordDir: string): ValidationFile | undefined {
  const record = join(recordDir, EXPERIMENT_FILES.record);
  const v = readJsonFile<ValidationFile>(join(recordDir, VALIDATION_FILE));
  if (!v || v.format !== VALIDATION_FORMAT || !Array.isArray(v.checks) || !existsSync(record)) return undefined;
  return v.record_sha256 === sha256File(record) ? v : undefined;
}
