/** The Checkpoints rows' lifecycle notes and expiry warnings, from `agent-lab ckpt status --json`. */
import assert from "node:assert/strict";
import {
  expiringSoon,
  lifecycleNote,
  outsideGroupLabel,
  outsideRow,
  parseCheckpointStatus,
  parseOutsideCheckpoints,
  withLifecycle,
} from "../../../src/extension/checkpoints/checkpoint-lifecycle";

const NOW = Date.parse("2026-12-05T10:00:00Z");
const ckpt = (path: string, extra: { expires_at?: string; public?: boolean } = {}) => ({
  checkpoint_id: path.split("/").slice(-2).join("/"),
  checkpoint_type: path.includes("/weights/") ? ("training" as const) : ("sampler" as const),
  time: "2026-12-01T00:00:00Z",
  tinker_path: path,
  size_bytes: 1000,
  public: false,
  ...extra,
});

describe("extension/checkpoint-lifecycle", () => {
  const status = parseCheckpointStatus(
    JSON.stringify([
      {
        name: "sft-e1",
        backend: "local",
        state: ckpt("tinker://r/weights/e1", { expires_at: "2026-12-12T10:00:00Z" }),
        sampler: ckpt("tinker://r/sampler_weights/e1", { expires_at: "2026-12-12T10:00:00Z" }),
      },
      {
        name: "grpo-s1",
        backend: "local",
        state: ckpt("tinker://g/weights/s1", { expires_at: "2026-12-06T10:00:00Z" }),
        sampler: ckpt("tinker://g/sampler_weights/s1", { public: true }),
      },
      { name: "gone", backend: "tinker", state: null, sampler: null },
    ]),
  );

  it("notes expiry and public state on a row, the sampler's apart when it differs", () => {
    assert.equal(lifecycleNote(status.get("sft-e1"), NOW), "expires in 7.0 days · private");
    assert.equal(
      lifecycleNote(status.get("grpo-s1"), NOW),
      "expires in 1.0 days · private (sampler: no expiry · public)",
    );
    assert.equal(lifecycleNote(status.get("gone"), NOW), "not on Tinker");
    assert.equal(lifecycleNote(undefined, NOW), undefined);
    assert.equal(withLifecycle("sft · epoch 1", "no expiry · public"), "sft · epoch 1 · no expiry · public");
    assert.equal(withLifecycle("sft · epoch 1", undefined), "sft · epoch 1");
  });

  it("lists the checkpoints that expire within 2 days", () => {
    assert.deepEqual(expiringSoon(status.values(), NOW), [
      { name: "grpo-s1", path: "tinker://g/weights/s1", expires: "2026-12-06T10:00:00Z" },
    ]);
  });

  it("reads nothing from output that is not the status array", () => {
    assert.equal(parseCheckpointStatus("agent-lab ckpt: oops").size, 0);
    assert.equal(parseCheckpointStatus("{}").size, 0);
  });
});

describe("extension/checkpoint-lifecycle: the service's checkpoints not in this folder", () => {
  it("reads `ckpt --remote --json` into the group's label and rows; anything else is no group", () => {
    const outside = parseOutsideCheckpoints(
      JSON.stringify({
        backend: "tinker",
        checkpoints: [ckpt("tinker://x/weights/a", { expires_at: "2026-12-06T22:00:00Z", public: true })],
        total: 4,
      }),
    )!;
    assert.equal(outside.total, 4);
    assert.equal(outsideGroupLabel(outside), "On Tinker, not in this folder (1)");
    assert.deepEqual(outsideRow(outside.checkpoints[0], NOW), {
      label: "x/weights/a",
      description: "training · 1000 B · expires in 1.5 days · public",
    });
    assert.equal(parseOutsideCheckpoints("agent-lab ckpt: no Tinker key"), undefined);
    assert.equal(parseOutsideCheckpoints("[]"), undefined);
  });
});
