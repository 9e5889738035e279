/**
 * The trace worker's result texts and gold-in-results taken from the tokens' own texts (a tokenizer
 * that decodes piecewise) against decoding each result slice again (the reference: the same
 * tokenizer without piecewiseSpecialIds), on real HotpotQA episodes of the harness: the run-wide
 * pass over 200 episodes (the full-text index's texts and gold counts) and the view of one
 * 20,000-token episode (its results one long block, as in the integration test). Interleaved,
 * medians of --repeat; the outputs are checked equal.
 *
 *   npx tsx bench/panels/result-texts.ts [--repeat R]
 */
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { offlineTokenizer } from "../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../src/core/base/chat/tokenizer";
import type { EpisodeRecord } from "../../src/core/base/runs/run-files";
import { goldInResults, resultTexts } from "../../src/core/views/trace/gold-in-results";
import { buildTraceView } from "../../src/core/views/trace/trace-view";
import { runViewSpec } from "../../src/core/views/trace/run-view";
import { readHotpot, twoSearchEpisodes } from "../../test/unit/core/views/trace/real-episodes";

const DEV = join(__dirname, "..", "..", "..", "shared", "data", "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** One episode grown to 20,000 tokens with other episodes' inserted tokens as one long result (as panels.test.ts). */
function longEpisode(episodes: EpisodeRecord[]): EpisodeRecord {
  const base = episodes.find((e) => (e.turns?.length ?? 0) > 1)!;
  const turns = base.turns!;
  const filler = episodes.flatMap((e) => e.tokens.filter((_, i) => e.sampled[i] === 0));
  const need = 20_000 - base.tokens.length;
  while (filler.length < need) filler.push(...filler);
  const at = turns[0].end - 3;
  const grow = <T>(xs: T[], fill: T[]) => [...xs.slice(0, at), ...fill, ...xs.slice(at)];
  return {
    ...base,
    id: "long-1",
    tokens: grow(base.tokens, filler.slice(0, need)),
    sampled: grow(base.sampled, new Array<number>(need).fill(0)),
    logprobs: base.logprobs ? grow(base.logprobs, new Array<number>(need).fill(0)) : null,
    turns: turns.map((t, i) =>
      i === 0
        ? { ...t, end: t.end + need }
        : { ...t, start: t.start + need, reply_end: t.reply_end + need, end: t.end + need },
    ),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  if (!existsSync(DEV)) {
    console.log(`skipped: ${DEV} is not present (the real HotpotQA records this bench runs on)`);
    return;
  }
  const repeat = arg("--repeat", 5);
  const tok = await offlineTokenizer("qwen3");
  const decoding = { name: tok.name, decode: tok.decode.bind(tok), tokenId: tok.tokenId.bind(tok) } as ChatTokenizer;
  const rows = readHotpot(DEV).slice(0, 200);
  const episodes = await twoSearchEpisodes(tok, rows);
  const long = longEpisode(episodes);
  const view = runViewSpec("hotpotqa");
  const runPass = (t: ChatTokenizer) =>
    episodes.map((e) => {
      const texts = resultTexts(e, t);
      return [texts, goldInResults(e, t, texts)];
    });
  const longView = (t: ChatTokenizer) => buildTraceView(long, t, { drift: false, view });
  assert.deepEqual(runPass(tok), runPass(decoding), "the same texts and verdicts on every episode");
  assert.deepEqual(longView(tok), longView(decoding), "the same 20,000-token view");

  const cases = [
    {
      what: `results pass, ${episodes.length} episodes (${episodes.reduce((n, e) => n + e.tokens.length, 0).toLocaleString("en-US")} tokens)`,
      run: runPass,
    },
    { what: "view of one 20,000-token episode", run: longView },
  ];
  console.log(
    `| ${["what", "decoded again (ms)", "tokens' own texts (ms)", "ratio"].join(" | ")} |\n|---|---|---|---|`,
  );
  for (const c of cases) {
    const times = { decoding: [] as number[], piecewise: [] as number[] };
    for (let r = 0; r <= repeat; r++) {
      for (const [name, t] of [
        ["decoding", decoding],
        ["piecewise", tok],
      ] as const) {
        const t0 = performance.now();
        c.run(t);
        if (r > 0) times[name].push(performance.now() - t0); // round 0 warms both
      }
    }
    const [a, b] = [median(times.decoding), median(times.piecewise)];
    console.log(`| ${c.what} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)}× |`);
  }
}

void main();
