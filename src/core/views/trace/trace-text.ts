/**
 * A run's episodes as terminal text for `agent-lab show`: how episodes ended, searches per
 * episode, and a few failures with the text the model wrote set apart from the text the harness
 * inserted (search results, turn markers). With colours, sampled text is bold green and inserted
 * text dim; without, inserted text is fenced in ⟦…⟧ so the difference survives a pipe or a log.
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import { environmentOfManifest } from "../../envs/registry";
import type { EpisodeRecord, RunFiles } from "../../base/runs/run-files";
import { finalLine } from "../../base/runs/summary";
import { metricRoles, roleValues, UNKNOWN_ENV_METRICS, type MetricDeclaration } from "../../base/runs/metrics";
import { mulberry32 as rng } from "../../base/util/mulberry32";
import { runViewSpec } from "./run-view";

export type TraceStyle = "ansi" | "plain";

const ANSI = {
  sampled: (s: string) => `\x1b[1;32m${s}\x1b[0m`,
  inserted: (s: string) => `\x1b[2m${s}\x1b[0m`,
  heading: (s: string) => `\x1b[1m${s}\x1b[0m`,
};
const PLAIN = {
  sampled: (s: string) => s,
  inserted: (s: string) => `⟦${s}⟧`,
  heading: (s: string) => s,
};

/** The legend printed above traces, in the same style as the traces. */
export function traceLegend(style: TraceStyle): string {
  const f = style === "ansi" ? ANSI : PLAIN;
  return `legend: ${f.sampled("model-written")}  ${f.inserted("harness-inserted")}`;
}

/** Consecutive tokens with the same sampled flag, in order. */
export function sampledRuns(
  tokens: readonly number[],
  sampled: readonly number[],
): { sampled: boolean; tokens: number[] }[] {
  const runs: { sampled: boolean; tokens: number[] }[] = [];
  tokens.forEach((t, i) => {
    const s = sampled[i] === 1;
    const last = runs[runs.length - 1];
    if (last && last.sampled === s) last.tokens.push(t);
    else runs.push({ sampled: s, tokens: [t] });
  });
  return runs;
}

/** The episode after its prompt, each run of tokens decoded and styled by who wrote it. */
export function renderTrace(e: EpisodeRecord, tokenizer: ChatTokenizer, style: TraceStyle): string {
  const f = style === "ansi" ? ANSI : PLAIN;
  return sampledRuns(e.tokens, e.sampled)
    .map((run) => {
      const text = tokenizer.decode(run.tokens);
      // Style line by line so a terminal's colour does not bleed across wrapped lines.
      return text
        .split("\n")
        .map((line) => (line ? (run.sampled ? f.sampled(line) : f.inserted(line)) : line))
        .join("\n");
    })
    .join("");
}

/** N episodes whose primary metric is < 0.5, chosen at random (seeded) but listed in file order. */
export function pickFailures(
  episodes: readonly EpisodeRecord[],
  n: number,
  seed: number,
  metrics?: readonly MetricDeclaration[],
): EpisodeRecord[] {
  const failures = episodes.filter((e) => roleValues(e, metrics).primary < 0.5);
  const next = rng(seed);
  const idx = failures.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx
    .slice(0, n)
    .sort((a, b) => a - b)
    .map((i) => failures[i]);
}

/** A turn's reply text as the environment parsed it (special tokens removed), when the tokenizer is known. */
function turnReply(e: EpisodeRecord, turn: number, tokenizer: ChatTokenizer | undefined): string | undefined {
  const t = e.turns?.[turn];
  if (!t || !tokenizer) return undefined;
  return tokenizer.decode(e.tokens.slice(t.start, t.reply_end), { skipSpecialTokens: true });
}

function bar(count: number, total: number, width = 30): string {
  return "█".repeat(total === 0 ? 0 : Math.round((count / total) * width));
}

export interface ShowOptions {
  name: string;
  n: number;
  seed: number;
  style: TraceStyle;
  /** The run's tokenizer; without it failures are shown without their token-level trace. */
  tokenizer?: ChatTokenizer;
  /** Why there is no tokenizer (printed instead of traces). */
  tokenizerProblem?: string;
  /** The run's drift line (drift.ts driftCountsLine: the trace viewer's numbers), printed under the header. */
  drift?: string;
}

export function renderShow(run: RunFiles, o: ShowOptions): string {
  const f = o.style === "ansi" ? ANSI : PLAIN;
  const eps = run.episodes;
  const out: string[] = [];
  const env = run.manifest ? environmentOfManifest(run.manifest) : undefined;
  const primary = metricRoles(env?.metrics ?? UNKNOWN_ENV_METRICS).primary.label;
  if (run.summary)
    out.push(
      f.heading(finalLine(o.name, { ...run.summary, n: eps.length }, env)) +
        `  [${run.summary.status}, ${eps.length}/${run.summary.planned}]`,
    );
  else out.push(f.heading(`${o.name}: ${eps.length} episodes (no summary.json)`));
  if (run.manifest) {
    const m = run.manifest;
    const setting = m.search
      ? m.search.closed_book
        ? "closed-book"
        : `top-k ${m.search.top_k}, max ${m.search.max_searches} searches`
      : (env?.name ?? m.environment?.name ?? "");
    out.push(
      `split ${m.split.name} · ${m.policy.kind} ${m.policy.model}${m.policy.checkpoint ? ` @ ${m.policy.checkpoint}` : ""} · ${setting}`,
    );
  }
  if (o.drift) out.push(o.drift);
  const total = eps.length;
  out.push("", f.heading("How episodes ended"));
  const ends = new Map<string, number>();
  for (const e of eps) ends.set(e.end, (ends.get(e.end) ?? 0) + 1);
  for (const [end, count] of [...ends].sort((a, b) => b[1] - a[1])) {
    out.push(
      `  ${end.padEnd(10)} ${String(count).padStart(5)}  ${((count / total) * 100).toFixed(0).padStart(3)}%  ${bar(count, total)}`,
    );
  }
  // Searches only where the environment declares them (run-view.ts); a run of an unknown environment shows them.
  const hasTools = runViewSpec(env?.name).searches;
  if (hasTools) {
    out.push("", f.heading("Searches per episode"));
    const searches = new Map<number, number>();
    for (const e of eps) searches.set(e.searches.length, (searches.get(e.searches.length) ?? 0) + 1);
    for (const [k, count] of [...searches].sort((a, b) => a[0] - b[0])) {
      out.push(`  ${String(k).padStart(2)}  ${String(count).padStart(5)}  ${bar(count, total)}`);
    }
  }
  const failures = pickFailures(eps, o.n, o.seed, env?.metrics);
  const nFail = eps.filter((e) => roleValues(e, env?.metrics).primary < 0.5).length;
  out.push(
    "",
    f.heading(`Failures (${primary} < 0.5): ${nFail} of ${total}; showing ${failures.length} (seed ${o.seed})`),
  );
  if (failures.length > 0)
    out.push(
      o.tokenizer ? traceLegend(o.style) : `(no token-level traces: ${o.tokenizerProblem ?? "tokenizer unavailable"})`,
    );
  for (const e of failures) {
    out.push(
      "",
      f.heading(
        `── ${e.id}  end=${e.end}  ${primary} ${roleValues(e, env?.metrics).primary.toFixed(2)}${hasTools ? `  searches ${e.searches.length}` : ""}`,
      ),
    );
    out.push(`Q: ${e.question}`, `gold: ${e.answers.join(" | ")}    prediction: ${e.prediction || "(none)"}`);
    const notes = env?.annotate?.(e as unknown as Record<string, unknown>);
    if (notes) {
      out.push(notes.notes.map((n) => `${n.label}: ${n.value}`).join("    "));
      for (const span of notes.spans) {
        const reply = turnReply(e, span.turn, o.tokenizer);
        if (reply !== undefined)
          out.push(
            `${span.label}: …${reply.slice(Math.max(0, span.start - 20), span.start)}[${reply.slice(span.start, span.end)}]${reply.slice(span.end, span.end + 5)}…`,
          );
      }
    }
    if (o.tokenizer) out.push(renderTrace(e, o.tokenizer, o.style));
    else out.push(...e.searches.map((s, i) => `  search ${i + 1}: ${s}`));
  }
  return out.join("\n");
}
