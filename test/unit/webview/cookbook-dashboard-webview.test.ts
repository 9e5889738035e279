/**
 * A tinker-cookbook run in the real dashboard bundle: its metrics grouped (reward, health,
 * optimisation, throughput) and labelled in words with the cookbook name kept in the tooltip,
 * group health from its rollout summaries, and its checkpoints with an Evaluate action.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cookbookDashboard } from "../../../src/core/views/interop/cookbook-dashboard";
import { writeCookbookRun, type CookbookFixture } from "../../helpers/cookbook-fixture";
import { assertInert, openWebview, webviewBundles, type WebviewUnderTest } from "./webview-dom";

describe("webview: dashboard of a tinker-cookbook run", function () {
  this.timeout(60_000);
  let ws: string;
  let run: CookbookFixture;
  let t: WebviewUnderTest;
  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-cookbook-dash-"));
    run = writeCookbookRun(join(ws, "logs"), { steps: 6, groups: 4, groupSize: 4, saveEvery: 3 });
    await webviewBundles();
  });
  after(() => rmSync(ws, { recursive: true, force: true }));
  beforeEach(async () => {
    t = await openWebview("dashboard");
    t.post({ type: "dashboard/data", data: cookbookDashboard(run.dir) });
    await t.settle();
  });
  afterEach(async () => t.close());

  it("groups and labels the cookbook's metrics, keeping the raw names as tooltips", () => {
    const doc = t.document;
    const metric = (key: string) => doc.querySelector(`#metrics [data-key="${key}"]`);
    const reward = metric("env/all/reward/total")!;
    assert.equal(reward.getAttribute("data-group"), "reward");
    assert.equal(reward.querySelector(".metric-name")!.textContent, "reward (mean total per episode)");
    assert.equal(reward.querySelector(".metric-name")!.getAttribute("title"), "env/all/reward/total");
    assert.equal(metric("env/all/by_group/frac_mixed")!.getAttribute("data-group"), "health");
    assert.equal(
      metric("optim/kl_sample_train_v1")!.querySelector(".metric-name")!.textContent,
      "KL sampler → learner (v1)",
    );
    assert.equal(metric("optim/kl_sample_train_v1")!.getAttribute("data-group"), "optimisation");
    assert.match(reward.querySelector(".metric-last")!.textContent!, new RegExp(`^step 5: `));
    // A constant metric (the learning rate) is folded into the one-line table, labelled too.
    assert.match(doc.body.textContent!, /learning rate/);
    assertInert(t);
  });

  it("shows group health from the rollout summaries and the checkpoints with Evaluate", () => {
    const doc = t.document;
    assert.ok(doc.getElementById("health"), "group health is drawn");
    const rows = Array.from(doc.querySelectorAll("#checkpoints tr[data-checkpoint]"));
    assert.deepEqual(
      rows.map((r) => r.getAttribute("data-checkpoint")).sort(),
      run.checkpoints.map((c) => c.name).sort(),
    );
    (rows[0].querySelector(".evaluate") as unknown as { click(): void }).click();
    const sent = t.sent.at(-1) as { type: string; checkpoint: string };
    assert.equal(sent.type, "dashboard/evaluate");
    assert.ok(run.checkpoints.some((c) => c.name === sent.checkpoint));
  });
});
