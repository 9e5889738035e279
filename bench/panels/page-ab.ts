/**
 * A new trace page in headless Chromium, this tree's webview build against another revision's, in
 * interleaved pairs: when the page's script starts and when its first frame with the list's first
 * rows and the first episode comes, both from navigation, read from the page's own marks. The data
 * is what the trace panel posts for the bench workspace's 200-episode run, delivered at the page's
 * load event, as VS Code's webview delivers what the extension posted before the page was up.
 * No VS Code: this isolates the page's own part of a new panel (`run.ts --vscode` measures all of it).
 *
 *   npx tsx bench/panels/page-ab.ts --against REV [--pairs N]   (default HEAD, 15 pairs)
 */
/// <reference lib="dom" />
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { Browser } from "playwright-core";
import { indexEpisodes, readIndexedEpisode } from "../../src/core/base/runs/episode-index";
import { readRunHead } from "../../src/core/base/runs/run-files";
import { tokenizerForRun } from "../../src/core/base/runs/run-tokenizer";
import { buildTraceView } from "../../src/core/views/trace/trace-view";
import { hostMessage, LIST_HEAD_ROWS } from "../../src/extension/webview/protocol";
import { episodeRows } from "../../src/extension/trace/trace-panel-rows";
import { makeNonce, panelHtml } from "../../src/extension/webview/webview-html";
import { launchHeadless } from "../../test/unit/webview/chromium-page";
import { panelWorkspace, ROOT } from "./workspace";
import { environmentMetrics } from "../../src/core/envs/catalog";

const { values } = parseArgs({
  options: { against: { type: "string", default: "HEAD" }, pairs: { type: "string", default: "15" } },
});
const PAIRS = Number(values.pairs);
const ORIGIN = "https://webview.test";

/** dist/webview as `webview/build.mjs` makes it, of this tree (rev undefined) or of a git revision. */
async function buildAt(rev: string | undefined): Promise<{ script: string; stylesheet: string }> {
  const out = mkdtempSync(join(tmpdir(), "agent-lab-page-ab-"));
  let tree = ROOT;
  if (rev) {
    tree = join(out, "tree");
    execFileSync("git", ["-C", ROOT, "worktree", "add", "--detach", "--quiet", tree, rev]);
    symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
  }
  try {
    const { buildWebviews } = (await import(pathToFileURL(join(tree, "webview", "build.mjs")).href)) as {
      buildWebviews(dir: string): Promise<void>;
    };
    await buildWebviews(join(out, "dist"));
    return {
      script: readFileSync(join(out, "dist", "trace.js"), "utf8"),
      stylesheet: readFileSync(join(out, "dist", "panels.css"), "utf8"),
    };
  } finally {
    if (rev) execFileSync("git", ["-C", ROOT, "worktree", "remove", "--force", tree]);
    rmSync(out, { recursive: true, force: true });
  }
}

/** The trace panel's two first messages for `dir`: the run with its list's first rows, then the first episode. */
async function firstMessages(dir: string): Promise<unknown[]> {
  const tok = (await tokenizerForRun(readRunHead(dir).manifest?.tokenizer)).tokenizer!;
  const index = indexEpisodes(dir, environmentMetrics, LIST_HEAD_ROWS);
  const rows = episodeRows(index.episodes.map((e) => e.head));
  return [
    hostMessage({
      type: "trace/run",
      run: { runDir: dir, name: "heuristic", rows, total: index.complete ? rows.length : null, gold: null },
    }),
    hostMessage({
      type: "trace/episode",
      episode: buildTraceView(readIndexedEpisode(index, index.episodes[0]), tok),
      buildMs: 0,
    }),
  ];
}

interface Open {
  scriptMs: number;
  frameMs: number;
}

/** Opens the page once in a new tab; its marks are wall-clock times, taken here from navigation. */
async function openOnce(
  browser: Browser,
  build: { script: string; stylesheet: string },
  messages: unknown[],
): Promise<Open> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    const html = panelHtml({
      kind: "trace",
      title: "trace",
      cspSource: ORIGIN,
      script: build.script,
      stylesheet: build.stylesheet,
      nonce: makeNonce(),
    });
    await page.route(`${ORIGIN}/**`, (route) => route.fulfill({ contentType: "text/html", body: html }));
    await page.addInitScript(`
      window.__sent = [];
      window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__sent.push(m), setState: () => {}, getState: () => undefined });
      window.addEventListener("load", () => { for (const m of ${JSON.stringify(messages)}) window.postMessage(m, "*"); });
    `);
    await page.goto(`${ORIGIN}/`);
    for (let i = 0; i < 100; i++) {
      const answer = await page.evaluate(
        async (probe) => {
          window.postMessage(probe, "*");
          await new Promise((r) => setTimeout(r, 20));
          const sent = (window as unknown as { __sent: { type: string; timings?: Record<string, number> }[] }).__sent;
          return {
            origin: performance.timeOrigin,
            timings: sent.filter((m) => m.type === "probeResult").pop()?.timings,
            errors: document.getElementById("errors")?.textContent,
          };
        },
        hostMessage({ type: "probe", id: i, selectors: [] }),
      );
      if (answer.errors)
        throw new Error(`the page refused this tree's messages (another protocol version?): ${answer.errors}`);
      const t = answer.timings;
      if (t?.listFrameAt && t.episodeFrameAt)
        return {
          scriptMs: t.scriptAt - answer.origin,
          frameMs: Math.max(t.listFrameAt, t.episodeFrameAt) - answer.origin,
        };
    }
    throw new Error("the page drew no list and episode within 2 s");
  } finally {
    await page.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const ws = await panelWorkspace(10_000, (l) => console.log(l));
  const messages = await firstMessages(ws.runs[200].search);
  const builds = { "this tree": await buildAt(undefined), [values.against!]: await buildAt(values.against) };
  const browser = await launchHeadless();
  const opens: Record<string, Open[]> = Object.fromEntries(Object.keys(builds).map((k) => [k, []]));
  try {
    for (let i = 0; i < PAIRS; i++) {
      const order = Object.keys(builds);
      if (i % 2) order.reverse(); // neither build always goes first
      for (const name of order) opens[name].push(await openOnce(browser, builds[name], messages));
    }
  } finally {
    await browser.close();
  }
  const load = `${cpus().length} cores, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" / ")}`;
  console.log(
    `\nA new trace page in headless Chromium, ${PAIRS} interleaved pairs (ms from navigation, medians; ${load})\n`,
  );
  console.log(["build".padEnd(16), "script start", "first frame with data", "frame − script"].join("  "));
  for (const [name, o] of Object.entries(opens)) {
    const cells = [
      median(o.map((x) => x.scriptMs)),
      median(o.map((x) => x.frameMs)),
      median(o.map((x) => x.frameMs - x.scriptMs)),
    ];
    console.log(
      [
        name.padEnd(16),
        ...cells.map((c, k) =>
          c.toFixed(0).padStart(["script start", "first frame with data", "frame − script"][k].length),
        ),
      ].join("  "),
    );
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
