import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { defaultSystemPromptFile } from "../../../../../src/core/harness/prompts";
import {
  classifyTagContent,
  isClosedBookPromptFile,
  lintPrompt,
  type LintIssue,
} from "../../../../../src/core/views/prompt-lint";

const codes = (issues: LintIssue[]) => issues.map((i) => i.code);
const covered = (text: string, i: LintIssue) => text.slice(i.start, i.end);

/** The recipe's first prompt, the one whose model searched for "keywords" (step 2.3), paraphrased. */
const RECIPE_TRAP = [
  "You are a research agent. Answer questions by searching Wikipedia.",
  "To search, write <search>keywords</search>.",
  "To answer, write <answer>final answer</answer>.",
].join("\n");

describe("prompt-lint: prompt rules", () => {
  it("finds nothing to complain about in the shipped default prompt and the closed-book prompt", () => {
    assert.deepEqual(lintPrompt(readFileSync(defaultSystemPromptFile(), "utf8")), []);
    const closed = defaultSystemPromptFile(true);
    assert.ok(isClosedBookPromptFile(closed));
    assert.deepEqual(lintPrompt(readFileSync(closed, "utf8"), { closedBook: true }), []);
  });

  it("flags the recipe's trap: placeholders inside the action tags, and no worked example", () => {
    const issues = lintPrompt(RECIPE_TRAP);
    assert.deepEqual(codes(issues), ["no-concrete-example", "placeholder-in-tag", "placeholder-in-tag"]);
    assert.deepEqual(
      issues.slice(1).map((i) => covered(RECIPE_TRAP, i)),
      ["keywords", "final answer"],
    );
    assert.match(issues[1].message, /copy it verbatim/);
  });

  it("recognises every placeholder style and leaves real queries and acronyms alone", () => {
    for (const p of [
      "keywords",
      "query",
      " search query ",
      "final answer",
      "the answer",
      "...",
      "…",
      "QUERY",
      "YOUR_QUERY",
      "ANSWER HERE",
      "{query}",
      "{{answer}}",
      "<query>",
      "[answer]",
      "${q}",
      "your query here",
    ]) {
      assert.equal(classifyTagContent(p), "placeholder", p);
    }
    for (const c of ["Salzburg river", "USA", "Robert Zemeckis", "1933", "yes", "Cast Away 2000 film director"]) {
      assert.equal(classifyTagContent(c), "concrete", c);
    }
    assert.equal(classifyTagContent("your query"), "slot");
    assert.equal(classifyTagContent(""), "empty");
  });

  it("puts each placeholder's range on the text inside the tag", () => {
    const text =
      "Reply with <search>{query}</search> or <answer>...</answer>.\nExample: <search>Tom Hanks FedEx film</search> then <answer>Cast Away</answer>";
    const issues = lintPrompt(text);
    assert.deepEqual(codes(issues), ["placeholder-in-tag", "placeholder-in-tag"]);
    assert.deepEqual(
      issues.map((i) => covered(text, i)),
      ["{query}", "..."],
    );
  });

  it("wants a concrete search followed by a concrete answer as the example", () => {
    const onlySlots = "Write <search>your query</search>, then <answer>your answer</answer>.";
    assert.deepEqual(codes(lintPrompt(onlySlots)), ["no-concrete-example"]);
    const answerFirst = "Example: <answer>Salzach</answer> comes after <search>Salzburg river</search>.";
    assert.deepEqual(codes(lintPrompt(answerFirst)), ["no-concrete-example"]);
    const good = "Example: <search>Salzburg river</search> and then <answer>Salzach</answer>.";
    assert.deepEqual(lintPrompt(good), []);
  });

  it("reports an action tag the prompt never mentions, as an error for <answer>", () => {
    const noAnswer = "Search with <search>Ed Wood director</search> until you know.";
    const issues = lintPrompt(noAnswer);
    const missing = issues.find((i) => i.code === "missing-action-tag");
    assert.ok(missing);
    assert.equal(missing.severity, "error");
    assert.match(missing.message, /<answer>/);
    const noSearch = lintPrompt("Answer with <answer>Paris</answer>.");
    assert.ok(
      noSearch.some((i) => i.code === "missing-action-tag" && i.severity === "warning" && /<search>/.test(i.message)),
    );
    // A closed-book prompt needs no search tag.
    assert.deepEqual(lintPrompt("Answer with <answer></answer>.", { closedBook: true }), []);
  });

  it("reports tags the harness does not parse, once per tag name, and not the harness's own <result>", () => {
    const text =
      "Use <tool>search</tool> or <query>Ed Wood</query>; results arrive in <result></result>.\n" +
      "<search>Ed Wood director</search> then <answer>Tim Burton</answer> and <Answer>x</Answer>";
    const issues = lintPrompt(text).filter((i) => i.code === "unknown-tag");
    assert.deepEqual(
      issues.map((i) => covered(text, i)),
      ["<tool>", "<query>", "<Answer>"],
    );
    assert.match(issues[2].message, /case-sensitive/);
  });

  it("recognises closed-book prompt files by name", () => {
    assert.ok(isClosedBookPromptFile("prompts/closed-book.md"));
    assert.ok(isClosedBookPromptFile("C:\\w\\closed_book.prompt.md"));
    assert.ok(!isClosedBookPromptFile("prompts/system.md"));
  });
});
