// The screenshot cases, run in order against one window per theme (see screenshots.mjs).
// Each: { name, run(wb, { shoot }) } — drive the UI with the WorkbenchDriver, wait for the content
// the picture claims to show, then shoot(suffix?) saves docs/screenshots/<name><suffix>-<theme>.png.
// Panel authors: add a case for each webview (open it, wait for an element inside wb.webview()).
export const CASES = [
  {
    name: "views",
    async run(wb, { shoot }) {
      await wb.openAgentLab();
      await wb.row("Runs", "closed-book").waitFor({ timeout: 20_000 });
      await wb.expand("Runs", "heuristic");
      await wb.row("Runs", "correct").waitFor({ timeout: 20_000 });
      await wb.expand("Runs", "wrong");
      await wb.expand("Checkpoints", "sft-it-e2");
      await wb.row("Checkpoints", "lineage").waitFor({ timeout: 20_000 });
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
      await wb.notification("Evaluate val").waitFor({ timeout: 20_000 });
      await wb.row("Jobs", "Evaluate val").waitFor({ timeout: 20_000 });
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
      await wb.openAgentLab();
      await wb.expand("Runs", "heuristic");
      await wb.expand("Runs", "correct");
      // Episode rows are the tree's third level; take the first one shown.
      const episode = wb.pane("Runs").locator('.monaco-list-row[aria-level="3"]').first();
      await episode.waitFor({ timeout: 20_000 });
      await episode.click();
      // The tree may re-render (a finished job adds a run), so read the question off the selected
      // row after the click; the trace shows that episode's question once it has loaded.
      const selected = wb.pane("Runs").locator('.monaco-list-row.selected[aria-level="3"]');
      const question = (await selected.innerText()).trim().slice(0, 30);
      await wb.webview().locator("body", { hasText: question }).waitFor({ timeout: 30_000 });
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
      await wb.pick("sft-it");
      await wb.webview().locator("body", { hasText: "sft-it" }).waitFor({ timeout: 30_000 });
      await wb.page.waitForTimeout(1000); // charts draw after the data message
      await shoot();
    },
  },
];
