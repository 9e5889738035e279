/**
 * One episode's token stream as DOM: a span per token (text node only), classed by who wrote it
 * (s = sampled by the model, i = inserted by the harness), by logprob bin, and by drift. Built in a
 * DocumentFragment in one pass; hover is one delegated listener, so 20,000 tokens stay quick.
 */
import type { TokenStream, TraceEpisodeView, TraceSection } from "../../src/core/trace/trace-view";
import { h } from "../shared/dom";

/** Logprob bins for shading: 0 = confident (≥ -0.1) … 4 = very unsure (< -3). */
export function logprobBin(lp: number): number {
  if (lp >= -0.1) return 0;
  if (lp >= -0.5) return 1;
  if (lp >= -1.5) return 2;
  if (lp >= -3) return 3;
  return 4;
}

/** Token indices (over prompt+tokens) inside a drift range. */
export function driftMask(total: number, ranges: [number, number][]): Uint8Array {
  const mask = new Uint8Array(total);
  for (const [a, b] of ranges) mask.fill(1, Math.max(0, a), Math.min(total, b));
  return mask;
}

/** Spans for tokens [start, end) of a stream; `offset` maps to prompt+tokens positions. */
export function tokenSpans(stream: TokenStream, start: number, end: number, offset: number, drift: Uint8Array | undefined, where: "p" | "t"): DocumentFragment {
  const frag = document.createDocumentFragment();
  for (let i = start; i < end; i++) {
    const span = document.createElement("span");
    let cls = stream.sampled[i] === 1 ? "tok s" : "tok i";
    if (stream.sampled[i] === 1 && stream.logprobs) cls += ` lp${logprobBin(stream.logprobs[i])}`;
    if (drift && drift[offset + i]) cls += " drift";
    span.className = cls;
    span.dataset.i = `${where}${i}`;
    span.textContent = stream.texts[i];
    frag.appendChild(span);
  }
  return frag;
}

function sectionTitle(s: TraceSection, ep: TraceEpisodeView): string {
  if (s.kind === "prompt") return `Prompt — system + question (${s.end - s.start} tokens, inserted)`;
  if (s.kind === "reply") return `Turn ${s.turn} · model reply (${s.end - s.start} tokens${s.action ? `, action ${s.action}` : ""}${s.stopReason ? `, stop ${s.stopReason}` : ""})`;
  if (s.kind === "results") {
    const titles = (s.hits ?? []).map((hit) => hit.title).join(" · ");
    return `Turn ${s.turn} · search “${s.query ?? ""}” → ${s.hits?.length ?? 0} results${titles ? `: ${titles}` : ""}`;
  }
  return `Turn ${s.turn} · harness (${s.end - s.start} tokens)${ep.end === "budget" && s.turn === ep.sections.length ? " budget" : ""}`;
}

/** The whole stream, section by section; prompt and search results are collapsible. */
export function renderStream(ep: TraceEpisodeView): { root: HTMLElement; spans: number } {
  const root = h("div", { class: "stream", id: "stream" });
  const total = ep.prompt.ids.length + ep.tokens.ids.length;
  const drift = ep.drift?.tokenDifferences.length ? driftMask(total, ep.drift.tokenDifferences) : undefined;
  let spans = 0;
  let lastTurn = 0;
  for (const s of ep.sections) {
    if (s.turn !== lastTurn && s.kind !== "prompt") {
      root.appendChild(h("div", { class: "turn-sep", role: "separator" }, `Turn ${s.turn}`));
      lastTurn = s.turn;
    }
    const isPrompt = s.kind === "prompt";
    const stream = isPrompt ? ep.prompt : ep.tokens;
    const offset = isPrompt ? 0 : ep.prompt.ids.length;
    const body = h("pre", { class: `tokens section-${s.kind}` });
    body.appendChild(tokenSpans(stream, s.start, s.end, offset, drift, isPrompt ? "p" : "t"));
    spans += s.end - s.start;
    if (s.kind === "reply") {
      root.appendChild(h("div", { class: "section reply", "data-turn": s.turn }, h("div", { class: "section-title" }, sectionTitle(s, ep)), body));
    } else {
      const details = h("details", { class: `section ${s.kind}`, "data-turn": s.turn, open: !isPrompt }, h("summary", null, sectionTitle(s, ep)), body);
      root.appendChild(details);
    }
  }
  return { root, spans };
}
