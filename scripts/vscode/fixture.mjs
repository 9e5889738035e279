// The integration suite's workspace, made fresh at test time (no data is committed): the offline
// demo writes synthetic HotpotQA-shaped data, a BM25 index and two real eval run folders; we add a
// checkpoint registry in the shape of src/core/checkpoints/registry.ts so the Checkpoints view has
// lineage to show (no training runs in the fixture, so these entries point at made-up paths).
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { root } from "./harness.mjs";

export const FIXTURE_CHECKPOINTS = [
  {
    name: "sft-demo-e1", sampler_path: "tinker://local-run-1/sampler_weights/sft-demo-e1",
    state_path: "tinker://local-run-1/weights/sft-demo-e1", base_model: "Qwen/Qwen3.5-4B", parent: null,
    data_hash: "sha256:0f3c9a1e", step: 12, epoch: 1, run: "runs/sft-demo", kind: "sft",
  },
  {
    name: "grpo-demo-s4", sampler_path: "tinker://local-run-2/sampler_weights/grpo-demo-s4",
    state_path: "tinker://local-run-2/weights/grpo-demo-s4", base_model: "Qwen/Qwen3.5-4B", parent: "sft-demo-e1",
    data_hash: "train[0:32]", step: 4, run: "runs/grpo-demo", kind: "grpo",
  },
];

/** Creates the workspace under a new temp folder and returns its absolute path. */
export function makeFixtureWorkspace({ log = () => {} } = {}) {
  const cli = path.join(root, "dist", "cli.js");
  if (!existsSync(cli)) throw new Error("dist/cli.js is missing: run npm run build first");
  const parent = mkdtempSync(path.join(tmpdir(), "agent-lab-it-"));
  const dir = path.join(parent, "workspace");
  const t0 = Date.now();
  execFileSync(process.execPath, [cli, "demo", "--dir", dir], { stdio: ["ignore", "ignore", "pipe"] });
  const created = new Date(0).toISOString();
  for (const entry of FIXTURE_CHECKPOINTS) {
    appendFileSync(path.join(dir, "runs", "checkpoints.jsonl"), JSON.stringify({ ...entry, created }) + "\n");
  }
  log(`[fixture] demo workspace at ${dir} in ${Date.now() - t0} ms`);
  return { dir, remove: () => rmSync(parent, { recursive: true, force: true }) };
}
