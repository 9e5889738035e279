/**
 * The Chat with Model panel's real webview bundle in happy-dom: the model's description, system
 * prompt and tools (carrying XSS payloads) render as inert text; an episode is drawn by the trace
 * viewer's token stream (sampled and inserted tokens) with each turn's cost; Next turn sends the
 * typed settings as they are (the process checks them) and a refusal shows as one line; Save as
 * episode is offered once the episode has ended, under a default name.
 */
import assert from "node:assert/strict";
import type { EpisodeRecord } from "../../../src/core/base/runs/run-files";
import type { PlaygroundEpisodeState } from "../../../src/core/views/playground/protocol";
import { buildTraceView } from "../../../src/core/views/trace/trace-view";
import type { WebviewMessage } from "../../../src/extension/webview/protocol";
import { assertInert, openWebview, PAYLOADS, webviewBundles, type WebviewUnderTest } from "./webview-dom";

function state(done: boolean): PlaygroundEpisodeState {
  const record: EpisodeRecord = {
    format: 2,
    id: "val-0",
    question: `What is 2 + 3? ${PAYLOADS[0]}`,
    answers: ["5"],
    prediction: done ? "5" : "",
    metrics: {},
    reward: done ? 1 : 0,
    end: done ? "answer" : "running",
    searches: ["2+3"],
    prompt: [1, 2, 3],
    tokens: [10, 11, 12, 20, 21, 30, 31],
    sampled: [1, 1, 1, 0, 0, 1, 1],
    logprobs: [-0.1, -0.2, -4, 0, 0, -0.5, -0.1],
    prefill: 11,
    generated: 5,
    usd: 0.002,
    turns: [
      { start: 0, reply_end: 3, end: 5, action: "calc", stop_reason: "stop", query: "2+3" },
      ...(done ? [{ start: 5, reply_end: 7, end: 7, action: "answer", stop_reason: "stop" }] : []),
    ],
  };
  return {
    view: buildTraceView(record, undefined),
    scored: true,
    done,
    turns: [{ prefill: 3, generated: 3, usd: 0.001 }, ...(done ? [{ prefill: 8, generated: 2, usd: 0.001 }] : [])],
    nextTurnMaxUsd: 0.01,
  };
}

describe("webview: playground (Chat with Model)", function () {
  let t: WebviewUnderTest;
  before(async () => {
    await webviewBundles();
  });
  beforeEach(async () => {
    t = await openWebview("playground");
    t.post({
      type: "playground/reply",
      reply: {
        type: "ready",
        environment: "calc",
        policy: { kind: "local-backend", model: "m", checkpoint: `tinker://x/sft-e1 ${PAYLOADS[1]}`, logprobs: true },
        systemPrompt: `Add numbers ${PAYLOADS[2]}`,
        tools: [{ name: "calc", description: `adds ${PAYLOADS[3]}`, parameters: {} }],
        splits: ["val", "train"],
        priced: true,
        defaults: { temperature: 0, maxTokens: 64 },
      },
    });
    t.post({
      type: "playground/reply",
      reply: { type: "items", split: "val", items: [{ id: "val-0", question: "q" }] },
    });
    await t.settle();
  });
  afterEach(async () => t.close());

  const click = (selector: string) => (t.document.querySelector(selector) as unknown as { click(): void }).click();
  const requests = () =>
    t.sent
      .filter((m): m is Extract<WebviewMessage, { type: "playground/request" }> => m.type === "playground/request")
      .map((m) => m.request);

  it("shows the model, system prompt and tools as inert text; asks for the split's items; starts a picked item", async () => {
    assertInert(t);
    assert.match(t.document.querySelector("#status")!.textContent!, /tinker:\/\/x\/sft-e1 .* · local-backend · calc/);
    assert.match(t.document.querySelector("#system-prompt pre")!.textContent!, /^Add numbers /);
    assert.match(t.document.querySelector("#tools")!.textContent!, /^Tools: calc — adds /);
    assert.equal((t.document.querySelector("#max-tokens") as unknown as { value: string }).value, "64");
    assert.deepEqual(requests()[0], { op: "items", split: "val" });
    click("#ask-item");
    assert.deepEqual(requests().at(-1), { op: "start", question: { split: "val", id: "val-0" } });
  });

  it("draws the episode with the trace viewer's stream and each turn's cost; Next turn sends the settings as typed", async () => {
    t.post({ type: "playground/reply", reply: { type: "episode", episode: state(false) } });
    await t.settle();
    const doc = t.document;
    assert.equal(doc.querySelectorAll("#stream .tok.s").length, 3, "the sampled tokens");
    assert.ok(doc.querySelectorAll("#stream .section-harness, #stream .section-results").length > 0, "inserted text");
    assert.equal(doc.querySelectorAll("#turn-costs li").length, 1);
    assert.match(doc.querySelector("#cost-total")!.textContent!, /next turn at most/);
    assert.equal((doc.querySelector("#save") as unknown as { disabled: boolean }).disabled, true);
    (doc.querySelector("#temperature") as unknown as { value: string }).value = "3";
    click("#next-turn");
    assert.deepEqual(requests().at(-1), { op: "turn", temperature: 3, maxTokens: 64 });
    t.post({
      type: "playground/reply",
      reply: { type: "error", op: "turn", message: "temperature 3 is out of range: use a number from 0 to 2" },
    });
    await t.settle();
    assert.equal(
      doc.querySelector("#playground-error")!.textContent,
      "temperature 3 is out of range: use a number from 0 to 2",
    );
    assert.equal((doc.querySelector("#next-turn") as unknown as { disabled: boolean }).disabled, false);
  });

  it("offers Save as episode once the environment ended it, under a default name", async () => {
    t.post({ type: "playground/reply", reply: { type: "episode", episode: state(true) } });
    await t.settle();
    const doc = t.document;
    assert.match(doc.querySelector("#status")!.textContent!, /^Ended: answer · answer “5” · reward 1/);
    assert.equal((doc.querySelector("#save") as unknown as { disabled: boolean }).disabled, false);
    const name = (doc.querySelector("#save-name") as unknown as { value: string }).value;
    assert.match(name, /^chat-val-0-\d{4}T\d{6}$/);
    click("#save");
    assert.deepEqual(requests().at(-1), { op: "save", name });
    t.post({ type: "playground/reply", reply: { type: "saved", name, runDir: `/ws/runs/${name}` } });
    await t.settle();
    assert.match(doc.querySelector("#saved")!.textContent!, /^Saved as chat-val-0-/);
    click("#open-saved");
    assert.equal(t.sent.at(-1)!.type, "playground/openSaved");
  });
});
