/**
 * An arm's adaptation record: which rows of its training list each GRPO step consumed, in order,
 * hashed per batch — read from the run's groups.jsonl, so anyone holding the run can rehash it.
 */
import { existsSync } from "node:fs";
import type { Question } from "../../base/data/question";
import { sha256Hex } from "../../base/runs/manifest";
import { runFile } from "../../base/runs/run-folder";
import { readJsonl } from "../../base/util/jsonl";
import { COOKBOOK_ADAM } from "../train/sft";
import type { AdaptationBatch, ArmRecord } from "./record";

/** Which rows each GRPO step consumed, in order, hashed per batch (from the run's groups.jsonl). */
export function adaptationRecord(
  runDir: string,
  list: readonly Pick<Question, "id">[],
  source: string,
): ArmRecord["adaptation"] {
  const rowOf = new Map(list.map((q, i) => [q.id, i]));
  const groups = existsSync(runFile(runDir, "groups"))
    ? readJsonl<{ step: number; group: number; question_id: string }>(runFile(runDir, "groups"), {
        tolerateTornTail: true,
      })
    : [];
  const bySteps = new Map<number, { group: number; id: string }[]>();
  for (const g of groups) {
    const rows = bySteps.get(g.step) ?? [];
    rows.push({ group: g.group, id: g.question_id });
    bySteps.set(g.step, rows);
  }
  const batches: AdaptationBatch[] = [...bySteps.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([step, rows]) => {
      const ids = rows.sort((a, b) => a.group - b.group).map((r) => r.id);
      return { step, rows: ids.map((id) => rowOf.get(id) ?? -1), ids_sha256: sha256Hex(ids.join("\n")) };
    });
  return { batches, sha256: sha256Hex(batches.map((b) => b.ids_sha256).join("\n")), source };
}

/**
 * An arm's initialisation as its training run's manifest records it (the fallbacks where a manifest
 * lacks a field: the spec's base model, the experiment's init state): written into the record by
 * `experiment run`, recomputed by `experiment validate`.
 */
export function armInitialisation(
  manifest: Readonly<Record<string, unknown>>,
  fallback: { base_model: string; init_state: string | null },
): ArmRecord["initialisation"] {
  const m = manifest;
  return {
    base_model: String(m.base_model ?? fallback.base_model),
    init_state: (m.init_state as string | null) ?? fallback.init_state ?? null,
    lora_rank: (m.lora_rank as number | null) ?? null,
    optimiser: { name: "adam", lr: m.lr, ...COOKBOOK_ADAM, loss_fn: m.loss_fn ?? "cross_entropy" },
  };
}
