/**
 * One episode's token stream as DOM. Model-sampled tokens get a span each (classed s, with a
 * logprob bin for shading); harness-inserted text — mostly search results, the bulk of a long
 * episode — is laid out in pieces of up to PIECE tokens (class i, one text node each) that split
 * into per-token spans the first time the pointer reaches them. That keeps a 20,000-token episode
 * to a few hundred elements at first paint while every token still gets its hover. All text goes
 * in as text nodes.
 */
import type { TokenStream, TraceEpisodeView, TraceSection } from "../../src/core/views/trace/trace-view";
import { h } from "../shared/dom";

/** Inserted tokens per piece: small enough to split on hover in well under a frame. */
export const PIECE = 256;

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

function tokenSpan(
  stream: TokenStream,
  i: number,
  offset: number,
  drift: Uint8Array | undefined,
  where: "p" | "t",
): HTMLSpanElement {
  const span = document.createElement("span");
  let cls = stream.sampled[i] === 1 ? "tok s" : "tok i";
  if (stream.sampled[i] === 1 && stream.logprobs) cls += ` lp${logprobBin(stream.logprobs[i])}`;
  if (drift && drift[offset + i]) cls += " drift";
  span.className = cls;
  span.dataset.i = `${where}${i}`;
  span.textContent = stream.texts[i];
  return span;
}

/** Spans for tokens [start, end) of a stream; `offset` maps to prompt+tokens positions. */
export function tokenSpans(
  stream: TokenStream,
  start: number,
  end: number,
  offset: number,
  drift: Uint8Array | undefined,
  where: "p" | "t",
): DocumentFragment {
  const frag = document.createDocumentFragment();
  let i = start;
  while (i < end) {
    if (stream.sampled[i] === 1) {
      frag.appendChild(tokenSpan(stream, i, offset, drift, where));
      i++;
      continue;
    }
    let j = i;
    while (j < end && j - i < PIECE && stream.sampled[j] !== 1) j++;
    let marked = false;
    if (drift) for (let k = i; k < j && !marked; k++) marked = drift[offset + k] === 1;
    if (marked) {
      // A piece with drift is laid out token by token at once, so the marks sit on the right tokens.
      for (let k = i; k < j; k++) frag.appendChild(tokenSpan(stream, k, offset, drift, where));
    } else {
      const piece = document.createElement("span");
      piece.className = "tok i piece";
      piece.dataset.i = `${where}${i}`;
      piece.dataset.n = String(j - i);
      piece.textContent = stream.texts.slice(i, j).join("");
      frag.appendChild(piece);
    }
    i = j;
  }
  return frag;
}

/** Replaces a piece by its per-token spans (no-op for a single token's span). */
export function splitPiece(el: HTMLElement, ep: TraceEpisodeView, drift?: Uint8Array): void {
  const n = Number(el.dataset.n ?? "0");
  const key = el.dataset.i;
  if (!n || !key) return;
  const where = key[0] as "p" | "t";
  const stream = where === "p" ? ep.prompt : ep.tokens;
  const offset = where === "p" ? 0 : ep.prompt.ids.length;
  const start = Number(key.slice(1));
  const frag = document.createDocumentFragment();
  for (let k = start; k < start + n; k++) frag.appendChild(tokenSpan(stream, k, offset, drift, where));
  el.replaceWith(frag);
}

/**
 * Marks tokens of prompt+tokens in `ranges` with a class (drift, noncanon, special), splitting
 * pieces that hold any so the mark sits on the right tokens.
 */
export function markTokens(root: HTMLElement, ep: TraceEpisodeView, ranges: [number, number][], cls: string): void {
  if (ranges.length === 0) return;
  const total = ep.prompt.ids.length + ep.tokens.ids.length;
  const mask = driftMask(total, ranges);
  const prompt = ep.prompt.ids.length;
  const marked = (el: HTMLElement) => {
    const key = el.dataset.i!;
    const at = (key[0] === "p" ? 0 : prompt) + Number(key.slice(1));
    const n = Number(el.dataset.n ?? "1");
    for (let k = at; k < at + n; k++) if (mask[k] === 1) return true;
    return false;
  };
  for (const el of Array.from(root.querySelectorAll<HTMLElement>(".tok"))) {
    if (!marked(el)) continue;
    if (el.dataset.n) {
      const parent = el.parentElement;
      splitPiece(el, ep);
      for (const t of Array.from(parent?.querySelectorAll<HTMLElement>(".tok:not([data-n])") ?? []))
        if (marked(t)) t.classList.add(cls);
    } else el.classList.add(cls);
  }
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Words of a search query worth marking (MiniSearch-style terms: letters and digits, 2+ long). */
export function queryTerms(query: string): string[] {
  return [
    ...new Set(
      query
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w.length >= 2),
    ),
  ];
}

/**
 * Marks every token whose text overlaps a word of `query` at a word start (class hit; pieces of inserted text are
 * split so only the matching tokens are marked) and opens collapsed sections holding one. Returns
 * the number of matches. An empty query clears the marks.
 */
export function highlightHits(root: HTMLElement, ep: TraceEpisodeView, query: string): number {
  for (const el of Array.from(root.querySelectorAll<HTMLElement>(".tok.hit"))) el.classList.remove("hit");
  const terms = queryTerms(query);
  if (terms.length === 0) return 0;
  let matches = 0;
  const prompt = ep.prompt.ids.length;
  const ranges: [number, number][] = [];
  for (const [stream, offset] of [
    [ep.prompt, 0],
    [ep.tokens, prompt],
  ] as const) {
    const starts: number[] = [];
    let text = "";
    for (const t of stream.texts) {
      starts.push(text.length);
      text += t;
    }
    const lower = text.toLowerCase();
    for (const term of terms) {
      for (let at = lower.indexOf(term); at >= 0; at = lower.indexOf(term, at + term.length)) {
        // Words and word prefixes, as the run's full-text search matches them: not "ed" in "need".
        if (at > 0 && WORD_CHAR.test(lower[at - 1])) continue;
        matches++;
        // Tokens covering [at, at + term.length).
        let i = upperBound(starts, at) - 1;
        const first = i;
        while (i + 1 < starts.length && starts[i + 1] < at + term.length) i++;
        ranges.push([offset + first, offset + i + 1]);
      }
    }
  }
  markTokens(root, ep, ranges, "hit");
  for (const el of Array.from(root.querySelectorAll<HTMLElement>(".tok.hit"))) {
    const section = el.closest("details");
    if (section && !section.hasAttribute("open")) section.setAttribute("open", "");
  }
  return matches;
}

function upperBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A section's title; its turn is the separator's above it ("Turn 2"), so the title does not say it again. */
export function sectionTitle(s: TraceSection): string {
  if (s.kind === "prompt") return `Prompt — system + question (${s.end - s.start} tokens, inserted)`;
  if (s.kind === "reply")
    return `model reply (${s.end - s.start} tokens${s.action ? `, action ${s.action}` : ""}${s.stopReason ? `, stop ${s.stopReason}` : ""})`;
  if (s.kind === "results") {
    const titles = (s.hits ?? []).map((hit) => hit.title).join(" · ");
    return `search “${s.query ?? ""}” → ${s.hits?.length ?? 0} results${titles ? `: ${titles}` : ""} (${s.end - s.start} tokens)`;
  }
  return `harness (${s.end - s.start} tokens)`;
}

/** The whole stream, section by section; prompt and search results are collapsible. */
export function renderStream(ep: TraceEpisodeView): { root: HTMLElement; spans: number } {
  const root = h("div", { class: "stream", id: "stream" });
  const total = ep.prompt.ids.length + ep.tokens.ids.length;
  // Template drift only: non-canonical splits and emitted special tokens are marked by the viewer.
  const drift = ep.drift?.templateDrift.length ? driftMask(total, ep.drift.templateDrift) : undefined;
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
    if (s.kind === "reply") {
      root.appendChild(
        h(
          "div",
          { class: "section reply", "data-turn": s.turn },
          h("div", { class: "section-title" }, sectionTitle(s)),
          body,
        ),
      );
    } else {
      root.appendChild(
        h(
          "details",
          { class: `section ${s.kind}`, "data-turn": s.turn, open: !isPrompt },
          h("summary", null, sectionTitle(s)),
          body,
        ),
      );
    }
  }
  return { root, spans: root.querySelectorAll(".tok").length };
}

/**
 * One hover listener for every token under `container`: the tooltip names the token's id, text,
 * who wrote it and its logprob (a piece of inserted text is split into tokens when first reached).
 */
export function attachTokenHover(
  container: HTMLElement,
  tooltip: HTMLElement,
  current: () => TraceEpisodeView | undefined,
): void {
  container.addEventListener("mouseover", (e) => {
    const episode = current();
    let span = (e.target as HTMLElement).closest<HTMLElement>(".tok");
    if (span?.dataset.n && episode) {
      // A piece of inserted text: lay it out token by token, then find the token under the pointer.
      const { clientX, clientY } = e;
      splitPiece(span, episode);
      const under = document.elementFromPoint(clientX, clientY) as HTMLElement | null;
      span = under?.closest<HTMLElement>(".tok") ?? null;
    }
    const key = span?.dataset.i;
    if (!span || !key || !episode || span.dataset.n) {
      tooltip.hidden = true;
      return;
    }
    const stream = key[0] === "p" ? episode.prompt : episode.tokens;
    const i = Number(key.slice(1));
    const lp = stream.logprobs && stream.sampled[i] === 1 ? stream.logprobs[i].toFixed(3) : "–";
    tooltip.textContent = `id ${stream.ids[i]} · ${JSON.stringify(stream.texts[i])} · ${stream.sampled[i] === 1 ? "sampled" : "inserted"} · logprob ${lp}`;
    const rect = span.getBoundingClientRect();
    tooltip.style.left = `${rect.left}px`;
    tooltip.style.top = `${rect.bottom + 4}px`;
    tooltip.hidden = false;
  });
  container.addEventListener("mouseleave", () => (tooltip.hidden = true));
}
