// The screenshot cases, run in order against one window per theme (see screenshots.mjs).
// Each: { name, run(wb, { shoot }) } — drive the UI with the WorkbenchDriver, wait for the content
// the picture claims to show, then shoot(suffix?) saves docs/screenshots/<name><suffix>-<theme>.png.
// Panel authors: add a case for each webview (open it, wait for an element inside wb.webview()).
import { FIXTURE, SHOT_EXTRAS } from "./fixture.mjs";
import { escapeRegExp, TREES_OPEN } from "./workbench-driver.mjs";

/** A quick pick row whose label is exactly `label` (quickPickRow matches any row containing it). */
async function pickExact(wb, label) {
  const row = wb
    .quickInput()
    .locator(".quick-input-list .monaco-list-row", {
      has: wb.page.locator(".label-name", {
        hasText: new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`),
      }),
    })
    .first();
  await row.waitFor({ timeout: 20_000 });
  await row.click();
}

/** Compare: `baseline` first, then `other` ticked in the second pick. */
async function openCompare(wb, baseline, other) {
  await wb.command("Agent Lab: Compare Runs…");
  await pickExact(wb, baseline);
  await pickExact(wb, other);
  await wb.page.keyboard.press("Enter");
  await wb.webview().locator("#ablation-table tbody tr").first().waitFor({ timeout: 30_000 });
}

/** Opens the training dashboard of `run` and waits for its charts. */
async function openDashboard(wb, run) {
  await wb.command("Agent Lab: Open Training Dashboard…");
  await pickExact(wb, run);
  await wb.webview().locator("#metrics canvas").first().waitFor({ timeout: 30_000 });
  await wb.page.waitForTimeout(800); // the rest of the charts draw in the next frames
}

/** The first row of tree level `level` drawn below `above` in the Runs pane. */
async function rowBelow(wb, above, level) {
  const top = (await above.boundingBox()).y;
  const rows = wb.pane("Runs").locator(`.monaco-list-row[aria-level="${level}"]`);
  await rows.first().waitFor({ timeout: 20_000 });
  const boxes = await rows.evaluateAll((els) => els.map((el) => el.getBoundingClientRect().top));
  const below = boxes.map((y, i) => ({ y, i })).filter(({ y }) => y > top);
  if (below.length === 0) throw new Error(`no level-${level} row below the one clicked`);
  return rows.nth(below.reduce((a, b) => (b.y < a.y ? b : a)).i);
}

/** Opens `run`'s first outcome group in the Runs tree and the trace of its first episode. */
async function openFirstEpisode(wb, run) {
  await wb.openAgentLab();
  await wb.collapseAll("Runs");
  const runRow = await wb.expand("Runs", run);
  // Scroll the run to the list's second row so that its groups and their first episodes are drawn
  // below it (not the first: a run scrolled past the top sticks there, over the row beneath).
  const list = wb.pane("Runs").locator(".monaco-list").first();
  const rowHeight = (await runRow.boundingBox()).height;
  await wb.wheel(list, (await runRow.boundingBox()).y - (await list.boundingBox()).y - rowHeight);
  await wb.page.waitForTimeout(300);
  // Outcome groups are the tree's second level, episodes its third: the first of each.
  const group = await rowBelow(wb, runRow, 2);
  if ((await group.getAttribute("aria-expanded")) === "false") await group.click();
  const episode = await rowBelow(wb, group, 3);
  await episode.click();
  // The tree may re-render (a finished job adds a run), so read the question off the selected
  // row after the click; the trace shows that episode's question once it has loaded.
  const selected = wb.pane("Runs").locator('.monaco-list-row.selected[aria-level="3"]');
  const question = (await selected.innerText()).trim().slice(0, 30);
  await wb.webview().locator("body", { hasText: question }).waitFor({ timeout: 30_000 });
}

export const CASES = [
  {
    name: "views",
    async run(wb, { shoot }) {
      // The side bar as a new user first sees it (the first case of a window): Runs, the view used
      // most, the tallest (package.json's initialSize weights, Experiments collapsed until needed).
      await wb.openAgentLab(null);
      const heights = await wb.paneHeights();
      const tallest = Object.entries(heights).reduce((a, b) => (b[1] > a[1] ? b : a));
      if (tallest[0] !== "Runs")
        throw new Error(`the side bar opened with ${tallest[0]} tallest: ${JSON.stringify(heights)}`);
      await wb.setPanes(TREES_OPEN);
      await wb.findRow("Runs", "closed-book");
      await wb.expand("Runs", "heuristic");
      await wb.findRow("Runs", "correct");
      await wb.expand("Runs", "wrong");
      await wb.expand("Checkpoints", "sft-it-e2");
      await wb.findRow("Checkpoints", "lineage");
      await shoot();
    },
  },
  {
    // The Checkpoints sidebar at 350 px: the side bar dragged to that width, the other views collapsed.
    name: "checkpoints-sidebar",
    async run(wb, { shoot }) {
      await wb.openAgentLab({
        Runs: false,
        Experiments: false,
        Checkpoints: false,
        "Compare Checkpoints": true,
        Jobs: false,
      });
      await wb.command("Agent Lab: Focus on Compare Checkpoints View");
      const box = await wb.page.locator(".part.sidebar").boundingBox();
      await wb.page.mouse.move(box.x + box.width - 1, box.y + 300);
      await wb.page.mouse.down();
      await wb.page.mouse.move(box.x + 350, box.y + 300, { steps: 8 });
      await wb.page.mouse.up();
      await wb.viewWebview().locator("#rows .ckpt-row").first().waitFor({ timeout: 30_000 });
      // Evaluate missing (the modal's Start), then the rows as the evals left them.
      await wb.viewWebview().locator("#evaluate-missing").click();
      await wb.page.locator(".monaco-dialog-box .monaco-button", { hasText: "Start" }).first().click();
      await wb.viewWebview().locator("#evaluate-missing", { hasText: "Evaluating" }).waitFor({ timeout: 30_000 });
      await wb
        .viewWebview()
        .locator("#evaluate-missing", { hasText: "Evaluate missing" })
        .waitFor({ timeout: 600_000 });
      await wb.page.waitForTimeout(1500); // the chart draws after the data message
      await shoot();
    },
  },
  {
    name: "commands",
    async run(wb, { shoot }) {
      await wb.openAgentLab();
      await wb.paletteFilter("Agent Lab: ");
      await wb.quickInput().locator(".monaco-list-row", { hasText: "Agent Lab: Evaluate" }).first().waitFor();
      await shoot();
    },
  },
  {
    name: "evaluate",
    async run(wb, { shoot }) {
      await wb.openAgentLab();
      await wb.command("Agent Lab: Evaluate…");
      await wb.quickPickRow("hotpotqa-world");
      await shoot("-environment");
      await pickExact(wb, "hotpotqa-world");
      await wb.quickPickRow("val");
      await shoot("-split");
      await wb.pick("val");
      await wb.quickPickRow("Base model");
      await shoot("-model");
      await wb.pick("Base model");
      await wb.waitInput("Run folder name");
      await shoot("-name");
      await wb.input("Run folder name");
      await wb.input("Questions to run", "40");
      await wb.notification("(hotpotqa-world val)").waitFor({ timeout: 20_000 });
      await wb.findRow("Jobs", /\(hotpotqa-world val\)/);
      await shoot("-running");
      await wb.notification("finished").waitFor({ timeout: 120_000 });
      await shoot("-finished");
    },
  },
  {
    name: "api-key",
    async run(wb, { shoot }) {
      await wb.command("Agent Lab: Set Tinker API Key");
      await wb.waitInput("secret storage");
      await shoot();
    },
  },
  {
    name: "trace",
    async run(wb, { shoot }) {
      await openFirstEpisode(wb, "heuristic");
      await shoot();
    },
  },
  {
    // The second environment's trace: a single-turn math episode, its answer graded, nothing red.
    name: "trace-gsm8k",
    async run(wb, { shoot }) {
      await openFirstEpisode(wb, FIXTURE.gsm8kRun);
      await shoot();
    },
  },
  {
    name: "compare",
    async run(wb, { shoot }) {
      await wb.command("Agent Lab: Compare Runs…");
      await wb.pick("closed-book");
      await wb.quickPickRow("heuristic");
      await shoot("-pick");
      await (await wb.quickPickRow("heuristic")).click();
      await wb.page.keyboard.press("Enter");
      await wb.webview().locator("body").filter({ hasText: /\S/ }).waitFor({ timeout: 30_000 });
      await shoot();
    },
  },
  {
    name: "dashboard",
    async run(wb, { shoot }) {
      await wb.command("Agent Lab: Open Training Dashboard…");
      await pickExact(wb, FIXTURE.training);
      await wb.webview().locator("body", { hasText: "sft-it" }).waitFor({ timeout: 30_000 });
      await wb.page.waitForTimeout(1000); // charts draw after the data message
      await shoot();
    },
  },
  {
    name: "pair",
    async run(wb, { shoot }) {
      await openCompare(wb, FIXTURE.evalRuns[1], FIXTURE.evalRuns[0]);
      const flip = wb.webview().locator("#improved li, #regressed li").first();
      await flip.waitFor({ timeout: 20_000 });
      await flip.click();
      await wb.webview().locator("#pair-grid .pair-head").nth(1).waitFor({ timeout: 30_000 });
      await wb.webview().locator("#pair .gold").first().waitFor({ timeout: 10_000 });
      await shoot();
    },
  },
  {
    name: "compare-prompt",
    async run(wb, { shoot }) {
      await openCompare(wb, FIXTURE.evalRuns[0], SHOT_EXTRAS.promptRun);
      const diff = wb.webview().locator("#prompt-diffs");
      await diff.locator(".diff-added").first().waitFor({ timeout: 20_000 });
      // The panel redraws as its statistics arrive, which can detach the element mid-scroll: try again.
      for (let attempt = 1; ; attempt++) {
        try {
          await diff.scrollIntoViewIfNeeded({ timeout: 5_000 });
          break;
        } catch (e) {
          if (attempt === 3) throw e;
        }
      }
      await shoot();
    },
  },
  {
    name: "group-health",
    async run(wb, { shoot }) {
      await openDashboard(wb, SHOT_EXTRAS.grpo);
      const over = wb.webview().locator('.timechart[data-key="group-health"] .u-over');
      await over.scrollIntoViewIfNeeded();
      const box = await over.boundingBox();
      if (!box) throw new Error("the group-health chart has no plot area");
      // The third of four steps: a click picks the step under it.
      await over.click({ position: { x: box.width * 0.62, y: box.height / 2 } });
      const groups = wb.webview().locator("#groups h4");
      await groups.waitFor({ timeout: 20_000 });
      // The chart with its marked step above, the step's groups below.
      await groups.evaluate((el) => el.scrollIntoView({ block: "center" }));
      await shoot();
    },
  },
  {
    name: "cookbook-dashboard",
    async run(wb, { shoot }) {
      await openDashboard(wb, SHOT_EXTRAS.cookbook);
      await wb.webview().locator('#metrics .metric[data-key="env/all/reward/total"]').waitFor({ timeout: 20_000 });
      await wb.webview().locator("#checkpoints tr[data-checkpoint]").first().waitFor({ timeout: 20_000 });
      await shoot();
    },
  },
  {
    name: "experiment",
    async run(wb, { shoot }) {
      await wb.command("Agent Lab: Open Experiment…");
      await pickExact(wb, SHOT_EXTRAS.experiment);
      await wb.webview().locator("#verdict").waitFor({ timeout: 30_000 });
      await wb.webview().locator("#curves .u-over").first().waitFor({ timeout: 20_000 });
      await wb.page.waitForTimeout(500);
      await shoot();
    },
  },
  {
    name: "report",
    async run(wb, { shoot }) {
      await wb.command("Agent Lab: Open Report Preview");
      // The markdown preview is a webview too: wait for the report's rendered table.
      await wb.webview().locator("table").first().waitFor({ timeout: 30_000 });
      await shoot();
    },
  },
];
