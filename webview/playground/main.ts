/**
 * Chat with Model webview: the model and environment (system prompt, tools), a question typed or
 * picked from a split, each turn's temperature and max tokens, the episode drawn by the trace
 * viewer's own token stream (sampled vs inserted tokens, logprob shading and hover), the cost of
 * each turn, and Save as episode. Everything shown comes from the playground's process through the
 * extension; all text goes in as text nodes.
 */
import type { PlaygroundEpisodeState, PlaygroundReply } from "../../src/core/views/playground/protocol";
import type { TraceEpisodeView } from "../../src/core/views/trace/trace-view";
import { clear, h, usd } from "../shared/dom";
import { listen, markFirstFrame, send } from "../shared/host";
import { attachTokenHover, renderStream } from "../trace/token-stream";

const app = document.getElementById("app")!;
let episode: TraceEpisodeView | undefined;
let busy = false;

const status = h("p", { id: "status", class: "muted", role: "status" }, "Starting the model…");
const errorLine = h("p", { id: "playground-error", class: "error", role: "alert", hidden: true });
const modelInfo = h("div", { id: "model-info" });
const question = h("input", {
  id: "question",
  type: "text",
  placeholder: "Type a question (unscored: no gold answer)",
  "aria-label": "question",
}) as HTMLInputElement;
const ask = h("button", { id: "ask", type: "button" }, "Ask");
const split = h("select", { id: "split", "aria-label": "split" }) as HTMLSelectElement;
const item = h("select", { id: "item", "aria-label": "question from the split" }) as HTMLSelectElement;
const askItem = h("button", { id: "ask-item", type: "button" }, "Ask this one (scored)");
const temperature = h("input", {
  id: "temperature",
  type: "number",
  step: "0.1",
  value: "0",
  "aria-label": "temperature",
}) as HTMLInputElement;
const maxTokens = h("input", {
  id: "max-tokens",
  type: "number",
  step: "1",
  value: "512",
  "aria-label": "max tokens",
}) as HTMLInputElement;
const nextTurn = h("button", { id: "next-turn", type: "button", disabled: true }, "Next turn");
const cancelTurn = h("button", { id: "cancel-turn", type: "button", disabled: true }, "Cancel turn");
const saveName = h("input", {
  id: "save-name",
  type: "text",
  placeholder: "run name",
  "aria-label": "run name",
}) as HTMLInputElement;
const save = h("button", { id: "save", type: "button", disabled: true }, "Save as episode");
const saved = h("p", { id: "saved", hidden: true });
const costs = h("div", { id: "turn-costs" });
const streamHost = h("div", { id: "stream-host", class: "detail" });
const tooltip = h("div", { class: "tooltip", id: "tooltip", role: "tooltip", hidden: true });

app.append(
  h("header", null, status, errorLine, modelInfo),
  h(
    "section",
    { id: "ask-section" },
    h("h2", null, "Question"),
    question,
    ask,
    h("div", { class: "controls" }, split, item, askItem),
  ),
  h(
    "section",
    { id: "turn-section" },
    h(
      "div",
      { class: "controls" },
      h("label", null, "temperature ", temperature),
      h("label", null, "max tokens ", maxTokens),
      nextTurn,
      cancelTurn,
    ),
    costs,
  ),
  streamHost,
  h("section", { id: "save-section" }, h("div", { class: "controls" }, saveName, save), saved),
  tooltip,
);
attachTokenHover(streamHost, tooltip, () => episode);

function showError(message: string | undefined): void {
  errorLine.hidden = message === undefined;
  errorLine.textContent = message ?? "";
}

function setBusy(on: boolean, done = false): void {
  busy = on;
  nextTurn.disabled = on || !episode || done;
  cancelTurn.disabled = !on;
  ask.disabled = askItem.disabled = on;
}

function renderReady(r: Extract<PlaygroundReply, { type: "ready" }>): void {
  status.textContent = `${r.policy.checkpoint ?? `${r.policy.model} (base model)`} · ${r.policy.kind} · ${r.environment}`;
  temperature.value = String(r.defaults.temperature);
  maxTokens.value = String(r.defaults.maxTokens);
  clear(modelInfo);
  modelInfo.append(
    h(
      "details",
      { id: "system-prompt" },
      h("summary", null, "System prompt"),
      h("pre", null, r.systemPrompt ?? "(none)"),
    ),
    h(
      "p",
      { id: "tools", class: "muted" },
      r.tools.length ? `Tools: ${r.tools.map((t) => `${t.name} — ${t.description}`).join("; ")}` : "No tools",
    ),
  );
  clear(split);
  for (const s of r.splits) split.append(h("option", { value: s }, s));
  send({ type: "playground/request", request: { op: "items", split: split.value } });
}

function renderEpisode(state: PlaygroundEpisodeState): void {
  episode = state.view;
  clear(streamHost);
  streamHost.append(renderStream(state.view).root);
  clear(costs);
  const total = state.turns.reduce((s, t) => s + t.usd, 0);
  costs.append(
    h(
      "ol",
      { class: "turn-costs" },
      ...state.turns.map((t) =>
        h("li", { class: "turn-cost" }, `${t.prefill} prefill + ${t.generated} sampled tokens · ${usd(t.usd)}`),
      ),
    ),
    h(
      "p",
      { class: "muted", id: "cost-total" },
      `total ${usd(total)} · next turn at most ${usd(state.nextTurnMaxUsd)}`,
    ),
  );
  const v = state.view;
  status.textContent = state.done
    ? `Ended: ${v.end}${state.scored ? ` · answer “${v.prediction}” · reward ${v.reward}` : ` · answer “${v.prediction}” (unscored: typed question)`}`
    : `${v.sections.filter((s) => s.kind === "reply").length} turn(s) so far`;
  save.disabled = !state.done;
  // A name to save under, editable: the item and the time (run names are letters, digits, ".", "_", "-").
  if (state.done && !saveName.value)
    saveName.value = `chat-${v.id.replace(/[^A-Za-z0-9._-]/g, "-")}-${new Date().toISOString().replace(/[-:]/g, "").slice(4, 15)}`;
  setBusy(false, state.done);
  markFirstFrame("episodeAt");
}

listen((m) => {
  if (m.type !== "playground/reply") return;
  const r = m.reply;
  if (r.type === "ready") renderReady(r);
  else if (r.type === "items") {
    clear(item);
    for (const i of r.items) item.append(h("option", { value: i.id }, `${i.id}: ${i.question.slice(0, 80)}`));
  } else if (r.type === "episode") {
    showError(undefined);
    saved.hidden = true;
    renderEpisode(r.episode);
  } else if (r.type === "cancelled") {
    renderEpisode(r.episode);
    status.textContent = "Turn cancelled: the episode is as it was before it";
  } else if (r.type === "saved") {
    showError(undefined);
    clear(saved);
    const open = h("a", { id: "open-saved", role: "link", tabindex: 0 }, "Open in the trace viewer");
    open.addEventListener("click", () => send({ type: "playground/openSaved" }));
    saved.append(`Saved as ${r.name} (${r.runDir}) · `, open);
    saved.hidden = false;
  } else if (r.type === "error") {
    showError(r.message);
    if (r.op === "turn") setBusy(false);
  }
});

const request = (body: Parameters<typeof send>[0]) => {
  showError(undefined);
  send(body);
};
ask.addEventListener("click", () => {
  saveName.value = "";
  request({ type: "playground/request", request: { op: "start", question: { typed: question.value } } });
});
askItem.addEventListener("click", () => {
  saveName.value = "";
  request({ type: "playground/request", request: { op: "start", question: { split: split.value, id: item.value } } });
});
split.addEventListener("change", () =>
  send({ type: "playground/request", request: { op: "items", split: split.value } }),
);
nextTurn.addEventListener("click", () => {
  if (busy) return;
  setBusy(true);
  status.textContent = "Sampling…";
  // Sent as typed: the process checks the ranges (one contract) and answers a refusal in one line.
  request({
    type: "playground/request",
    request: { op: "turn", temperature: Number(temperature.value), maxTokens: Number(maxTokens.value) },
  });
});
cancelTurn.addEventListener("click", () => send({ type: "playground/request", request: { op: "cancel" } }));
save.addEventListener("click", () =>
  request({ type: "playground/request", request: { op: "save", name: saveName.value.trim() } }),
);
