// Drives VS Code's web workbench through playwright the way a person would: activity bar, view
// panes, tree rows, the command palette, quick picks, input boxes, notifications and webviews.
// Used by the screenshot cases; selectors are VS Code 1.100's DOM.

/** `text` as a RegExp source that matches it literally. */
export const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** Waits until `locator`'s attribute reads `value`. */
async function waitForAttribute(locator, attribute, value, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  while ((await locator.getAttribute(attribute)) !== value) {
    if (Date.now() > deadline) throw new Error(`${attribute} never became ${value}`);
    await locator.page().waitForTimeout(100);
  }
}

/**
 * How far (px, for a wheel) a list must scroll to show all of `row`: 0 when the row lies wholly
 * inside the list, undefined when the list does not draw it.
 */
async function clippedBy(row, list) {
  if (!(await row.isVisible())) return undefined;
  const [r, l] = await Promise.all([row.boundingBox({ timeout: 1000 }), list.boundingBox({ timeout: 1000 })]);
  if (!r || !l) return undefined;
  if (r.y < l.y) return Math.floor(r.y - l.y);
  if (r.y + r.height > l.y + l.height) return Math.ceil(r.y + r.height - l.y - l.height);
  return 0;
}

/** The side bar's panes as the tree cases want them. */
export const TREES_OPEN = {
  Runs: true,
  Experiments: false,
  Checkpoints: true,
  "Compare Checkpoints": false,
  Jobs: true,
};

export class WorkbenchDriver {
  constructor(page, { workspace }) {
    this.page = page;
    this.workspace = workspace;
  }

  async ready() {
    await this.page.locator(".monaco-workbench").waitFor({ timeout: 90_000 });
    await this.activityItem().waitFor({ timeout: 60_000 });
  }

  activityItem() {
    return this.page.locator('.activitybar .action-item a[aria-label^="Agent Lab"]');
  }

  /**
   * Shows the Agent Lab side bar (clicking the icon again would hide it) with `panes` expanded or
   * collapsed: by default the three trees open and the webview view closed, so the trees have room;
   * null leaves them as they are.
   */
  async openAgentLab(panes = TREES_OPEN) {
    if (!(await this.pane("Runs").isVisible())) await this.activityItem().click();
    await this.pane("Runs").waitFor({ timeout: 20_000 });
    if (panes) await this.setPanes(panes);
  }

  /** The height in pixels of each pane of the side bar, by title. */
  async paneHeights() {
    const heights = {};
    for (const title of Object.keys(TREES_OPEN)) heights[title] = (await this.pane(title).boundingBox()).height;
    return heights;
  }

  /** A view pane of the side bar by its title (Runs, Checkpoints, Jobs). */
  pane(title) {
    return this.page.locator(".part.sidebar .pane", {
      has: this.page.locator(".pane-header", { hasText: new RegExp(`^\\s*${title}`, "i") }),
    });
  }

  /**
   * Expands or collapses the side bar's panes by title ({ Runs: true, "Compare Checkpoints": false }).
   * The layout outlives a case: a case that needs room for a tree says so instead of inheriting
   * what the case before it left.
   */
  async setPanes(expanded) {
    for (const [title, open] of Object.entries(expanded)) {
      const header = this.pane(title).locator(".pane-header").first();
      await header.waitFor({ timeout: 20_000 });
      if (((await header.getAttribute("aria-expanded")) === "true") !== open) await header.click();
    }
  }

  /**
   * A tree row inside a pane: the one whose label is `label` (a string: the whole label, so
   * "heuristic" is not "heuristic-terse"), or matches it (a RegExp).
   */
  row(paneTitle, label) {
    const name = label instanceof RegExp ? label : new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`);
    return this.pane(paneTitle)
      .locator(".monaco-list-row", { has: this.page.locator(".label-name", { hasText: name }) })
      .first();
  }

  /**
   * Waits for a tree row, scrolling the pane's list to it: the list draws only the rows in view, so
   * a row below a short pane's fold is not in the page until the list scrolls there. The row has to
   * lie wholly inside the list: a row the list clips at its top edge is in the page and "visible",
   * but a click on it lands on the pane's header.
   */
  async findRow(paneTitle, label, timeout = 20_000) {
    const row = this.row(paneTitle, label);
    const list = this.pane(paneTitle).locator(".monaco-list").first();
    const deadline = Date.now() + timeout;
    // From the top down, three rows a step; back to the top every 20 steps (the row may be added
    // above the view while the pass runs). A row drawn but clipped is scrolled by what it lacks.
    for (let step = 0; Date.now() < deadline; step++) {
      const clipped = await clippedBy(row, list);
      if (clipped === 0) return row;
      await this.wheel(list, clipped ?? (step % 20 === 0 ? -100_000 : 66));
      await this.page.waitForTimeout(150);
    }
    const rows = await this.pane(paneTitle)
      .locator(".monaco-list-row")
      .evaluateAll((els) => els.map((e) => `${e.querySelector(".label-name")?.textContent} (${e.style.top})`));
    throw new Error(`no row "${label}" in ${paneTitle} within ${timeout} ms; the rows in view: ${rows.join(", ")}`);
  }

  /**
   * Scrolls `list` by `dy` px with the mouse wheel. A pointer left resting on a row (a click's)
   * opens that row's tooltip to its right, and a wheel over the tooltip scrolls nothing: so the
   * mouse leaves the list first, wheels at its left edge and leaves again.
   */
  async wheel(list, dy) {
    const box = await list.boundingBox();
    await this.page.mouse.move(box.x + 8, 5);
    await this.page.waitForTimeout(100);
    await this.page.mouse.move(box.x + 8, box.y + box.height / 2);
    await this.page.mouse.wheel(0, dy);
    await this.page.mouse.move(box.x + 8, 5);
  }

  /** Collapses every top-level row of a pane's tree (an earlier case may have opened long ones). */
  async collapseAll(paneTitle) {
    const list = this.pane(paneTitle).locator(".monaco-list").first();
    await this.wheel(list, -100_000);
    const open = this.pane(paneTitle).locator('.monaco-list-row[aria-level="1"][aria-expanded="true"]');
    while ((await open.count()) > 0) await open.first().locator(".monaco-tl-twistie").click();
  }

  async expand(paneTitle, label) {
    const row = await this.findRow(paneTitle, label);
    if ((await row.getAttribute("aria-expanded")) === "false") await row.click();
    await waitForAttribute(row, "aria-expanded", "true");
    return row;
  }

  quickInput() {
    return this.page.locator(".quick-input-widget");
  }

  /** Runs a command from the F1 palette by its full title ("Agent Lab: Evaluate…"). */
  async command(title) {
    await this.page.keyboard.press("Escape");
    // Focus the workbench on the window title: a click mid-window lands on whatever a panel shows
    // there (a dashboard's Evaluate button opened its input box under the palette).
    await this.page.mouse.click(640, 14);
    await this.page.keyboard.press("F1");
    const input = this.quickInput().locator("input");
    await input.waitFor({ timeout: 10_000 });
    await input.fill(`>${title}`);
    await this.quickInput().locator(".monaco-list-row", { hasText: title }).first().waitFor({ timeout: 10_000 });
    await this.page.keyboard.press("Enter");
  }

  /** Types into the palette without running anything (to show the command list). */
  async paletteFilter(text) {
    await this.page.keyboard.press("F1");
    const input = this.quickInput().locator("input");
    await input.waitFor({ timeout: 10_000 });
    await input.fill(`>${text}`);
    await this.quickInput().locator(".monaco-list-row").first().waitFor({ timeout: 10_000 });
  }

  /** Waits for a quick pick whose rows include `label`, and returns that row. */
  async quickPickRow(label) {
    const row = this.quickInput().locator(".quick-input-list .monaco-list-row", { hasText: label }).first();
    await row.waitFor({ timeout: 20_000 });
    return row;
  }

  async pick(label) {
    await (await this.quickPickRow(label)).click();
  }

  /** Waits for an input box whose prompt contains `prompt`; fills `value` (undefined keeps the default) and accepts. */
  async input(prompt, value) {
    await this.quickInput()
      .locator(".quick-input-message, .quick-input-header", { hasText: prompt })
      .first()
      .waitFor({ timeout: 20_000 });
    if (value !== undefined) await this.quickInput().locator("input").fill(value);
    await this.page.keyboard.press("Enter");
  }

  async waitInput(prompt) {
    await this.quickInput()
      .locator(".quick-input-message, .quick-input-header", { hasText: prompt })
      .first()
      .waitFor({ timeout: 20_000 });
  }

  notification(text) {
    return this.page.locator(".notification-toast", { hasText: text }).first();
  }

  /** Texts of the error notifications on screen (toasts with the error icon). */
  async errorToasts() {
    const toasts = this.page.locator(".notification-toast", { has: this.page.locator(".codicon-error") });
    return (await toasts.locator(".notification-list-item-message").allInnerTexts())
      .map((t) => t.trim())
      .filter(Boolean);
  }

  /**
   * The editor's webview panel's document (webview = two nested iframes). A side bar webview view
   * (Compare Checkpoints) is an iframe too, told apart by where it lies: its URL does not say (a
   * view first shown after starting collapsed has no "purpose" in it). :visible, because a panel
   * just closed or hidden behind another editor keeps its iframe for a while.
   */
  webview() {
    return this.page.frameLocator("iframe.webview.ready:visible:right-of(.part.sidebar)").frameLocator("#active-frame");
  }

  /** The document of the side bar's webview view (Compare Checkpoints). */
  viewWebview() {
    return this.page.frameLocator("iframe.webview.ready:visible:left-of(.part.editor)").frameLocator("#active-frame");
  }

  /** Back to a plain window: no quick input, notifications or editors. */
  async reset() {
    await this.page.keyboard.press("Escape");
    await this.page.keyboard.press("Escape");
    for (const title of ["Notifications: Clear All Notifications", "View: Close All Editors"]) {
      await this.command(title).catch(() => {});
    }
    await this.page.keyboard.press("Escape");
  }
}
