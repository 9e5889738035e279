import assert from "node:assert/strict";
import { firstTagged, parseAction } from "../../../../../src/core/envs/hotpotqa/actions";
import { EMPTY_QUERY, formatResults, LAST_SEARCH, NO_RESULTS } from "../../../../../src/core/envs/hotpotqa/results";

describe("harness: actions and results", () => {
  it("reads one search or one answer, trimmed", () => {
    assert.deepEqual(parseAction("<search> Scott Derrickson nationality </search>"), {
      kind: "search",
      query: "Scott Derrickson nationality",
    });
    assert.deepEqual(parseAction("Sure.\n<answer>\nyes\n</answer>"), { kind: "answer", text: "yes" });
    assert.deepEqual(parseAction("<answer></answer>"), { kind: "answer", text: "" });
    assert.deepEqual(parseAction("<search></search>"), { kind: "search", query: "" });
    assert.deepEqual(parseAction("I believe it is yes."), { kind: "none" });
  });

  it("an answer anywhere wins over a search, even one written first", () => {
    assert.deepEqual(parseAction("<search>a</search><answer>b</answer>"), { kind: "answer", text: "b" });
  });

  it("repeated tags: the first complete pair counts", () => {
    assert.deepEqual(parseAction("<answer>A</answer> or <answer>B</answer>"), { kind: "answer", text: "A" });
    assert.deepEqual(parseAction("<search>a</search><search>b</search>"), { kind: "search", query: "a" });
  });

  it("nested openings: the innermost one before the first closing tag", () => {
    assert.equal(firstTagged("<answer>a<answer>b</answer></answer>", "answer"), "b");
    assert.equal(firstTagged("<answer>x <search>q</search></answer>", "answer"), "x <search>q</search>");
  });

  it("stray closing tags and unclosed tags are not actions", () => {
    assert.equal(firstTagged("</answer> then <answer>B</answer>", "answer"), "B");
    assert.deepEqual(parseAction("<answer>Par"), { kind: "none" });
    assert.deepEqual(parseAction("<search>unclosed <answer>also"), { kind: "none" });
    assert.deepEqual(parseAction("<Answer>X</Answer>"), { kind: "none" }, "tags are case-sensitive");
  });

  it("keeps unicode and multi-line content", () => {
    assert.deepEqual(parseAction("<answer>Zoë Saldaña\n北京 🙂</answer>"), {
      kind: "answer",
      text: "Zoë Saldaña\n北京 🙂",
    });
  });

  it("formats results the recipe's way", () => {
    assert.equal(
      formatResults([
        { title: "Scott Derrickson", text: "Scott Derrickson (born July 16, 1966) is an American director." },
        { title: "Ed Wood", text: "Edward Davis Wood Jr. was an American filmmaker." },
      ]),
      "<result>\n[Scott Derrickson] Scott Derrickson (born July 16, 1966) is an American director.\n\n[Ed Wood] Edward Davis Wood Jr. was an American filmmaker.\n</result>",
    );
    assert.equal(formatResults([]), `<result>\n${NO_RESULTS}\n</result>`);
    for (const line of [NO_RESULTS, EMPTY_QUERY, LAST_SEARCH]) assert.ok(!/\n/.test(line) && line.trim() === line);
  });
});
