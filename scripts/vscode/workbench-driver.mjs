// Drives VS Code's web workbench through playwright the way a person would: activity bar, view
// panes, tree rows, the command palette, quick picks, input boxes, notifications and webviews.
// Used by the screenshot cases; selectors are VS Code 1.100's DOM.
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

  /** Shows the Agent Lab side bar (clicking the icon again would hide it). */
  async openAgentLab() {
    if (!(await this.pane("Runs").isVisible())) await this.activityItem().click();
    await this.pane("Runs").waitFor({ timeout: 20_000 });
  }

  /** A view pane of the side bar by its title (Runs, Checkpoints, Jobs). */
  pane(title) {
    return this.page.locator(".part.sidebar .pane", {
      has: this.page.locator(".pane-header", { hasText: new RegExp(`^\\s*${title}`, "i") }),
    });
  }

  /** A tree row inside a pane whose text contains `text`. */
  row(paneTitle, text) {
    return this.pane(paneTitle).locator(".monaco-list-row", { hasText: text }).first();
  }

  async expand(paneTitle, text) {
    const row = this.row(paneTitle, text);
    await row.waitFor({ timeout: 20_000 });
    if ((await row.getAttribute("aria-expanded")) === "false") await row.click();
    await this.pane(paneTitle)
      .locator('.monaco-list-row[aria-expanded="true"]', { hasText: text })
      .first()
      .waitFor({ timeout: 10_000 });
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

  /** The active webview panel's document (webview = two nested iframes). */
  webview() {
    return this.page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
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
