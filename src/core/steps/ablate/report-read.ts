/**
 * The one reader of an ablation report from disk (`agent-lab ablate --json`, a pipeline's
 * ablation.json, an experiment record's `ablation`): any format this build wrote comes back in
 * the current shape with the same numbers (format 1 through report-v1.ts); anything else is a
 * one-line FileFormatError naming the file.
 */
import { readFileSync } from "node:fs";
import { FileFormatError } from "../../base/errors";
import { ABLATION_FORMAT, type AblationReport } from "./report-types";
import { fromFormat1, type AblationReportV1 } from "./report-v1";

const KIND: AblationReport["kind"] = "agent-lab.ablation";

/** A parsed report (`source` names it in errors) in the current format. */
export function normaliseAblationReport(raw: unknown, source: string): AblationReport {
  const doc = raw as { kind?: unknown; format?: unknown } | null;
  if (typeof doc !== "object" || doc === null || doc.kind !== KIND)
    throw new FileFormatError(source, undefined, `not an ablation report (its "kind" is not "${KIND}")`);
  if (doc.format === ABLATION_FORMAT) return raw as AblationReport;
  if (doc.format === 1) return fromFormat1(raw as AblationReportV1, ABLATION_FORMAT);
  throw new FileFormatError(
    source,
    undefined,
    `ablation report format ${JSON.stringify(doc.format)} is not one this build reads (1 to ${ABLATION_FORMAT}): update Agent Lab`,
  );
}

/** Reads an ablation report file in any known format. */
export function readAblationReport(file: string): AblationReport {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    if (e instanceof SyntaxError) throw new FileFormatError(file, undefined, `not valid JSON (${e.message})`);
    throw e;
  }
  return normaliseAblationReport(raw, file);
}
