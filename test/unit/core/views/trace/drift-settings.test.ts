/**
 * The drift check's settings come from the run's manifest: the thinking setting its generation
 * prompts were rendered with, where the manifest recorded one, and the assumed setting otherwise.
 */
import { strict as assert } from "node:assert";
import { ASSUMED_THINKING } from "../../../../../src/core/base/runs/manifest-thinking";
import { driftSettings } from "../../../../../src/core/views/trace/drift";

describe("trace: the drift check's settings from a run's manifest", () => {
  it("renders with the recorded thinking setting, or the assumed one for a run that recorded none", () => {
    assert.deepEqual(driftSettings({ thinking: true }), { thinking: true });
    assert.deepEqual(driftSettings({ thinking: false }), { thinking: false });
    assert.deepEqual(driftSettings({ prompt: { thinking: true } }), { thinking: true });
    assert.deepEqual(driftSettings({ kind: "grpo" }), { thinking: ASSUMED_THINKING });
    assert.deepEqual(driftSettings(undefined), { thinking: ASSUMED_THINKING });
  });
});
