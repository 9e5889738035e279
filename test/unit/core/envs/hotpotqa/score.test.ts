/** The recipe's seven score tests, ported, plus the cases where JavaScript and Python differ. */
import assert from "node:assert/strict";
import { exactMatch, f1Score, normalizeAnswer } from "../../../../../src/core/envs/hotpotqa/score";

describe("score (recipe tests)", () => {
  it("articles and case", () => assert.equal(exactMatch("The United States", ["United States"]), 1));
  it("punctuation", () => assert.equal(normalizeAnswer("Arthur's Magazine."), "arthurs magazine"));
  it("partial credit", () => assert.ok(Math.abs(f1Score("President Richard Nixon", ["Richard Nixon"]) - 0.8) < 1e-7));
  it("yes/no is all or nothing", () => {
    assert.equal(f1Score("yes", ["no"]), 0);
    assert.equal(f1Score("no it was not", ["no"]), 0);
    assert.equal(f1Score("Yes", ["yes"]), 1);
  });
  it("numbers", () => assert.equal(exactMatch("1,844", ["1844"]), 1));
  it("best of several answers", () => assert.equal(f1Score("NYC", ["New York City", "NYC"]), 1));
  it("empty prediction", () => assert.equal(f1Score("", ["Paris"]), 0));
});

describe("score (where JavaScript and Python differ)", () => {
  it("articles are whole Unicode words: a letter with an accent is part of the word", () => {
    // JS's ASCII \b would see a boundary between "the" and "é" and drop "the"
    assert.equal(normalizeAnswer("theé a café"), "theé café");
    assert.equal(normalizeAnswer("Ωthe the"), "ωthe");
    assert.equal(normalizeAnswer("the中 中the the"), "the中 中the");
  });
  it("a combining mark is not a word character, so it ends a word (as in Python)", () => {
    assert.equal(normalizeAnswer("the\u0301 x"), "\u0301 x");
  });
  it("underscore is punctuation (dropped before articles are matched)", () => {
    assert.equal(normalizeAnswer("the_end a_b"), "theend ab");
  });
  it("splits on Python's whitespace set: \\x1c-\\x1f and \\x85 yes, U+FEFF no", () => {
    assert.equal(normalizeAnswer("new\x1cyork\x85city"), "new york city");
    assert.equal(normalizeAnswer("new\ufeffyork"), "new\ufeffyork");
    assert.equal(normalizeAnswer("a\u3000b\u2028c"), "b c");
  });
  it("lower-cases like str.lower(): İ gains a combining dot, final sigma", () => {
    assert.equal(normalizeAnswer("İstanbul"), "i\u0307stanbul");
    assert.equal(normalizeAnswer("ΟΔΥΣΣΕΥΣ"), "οδυσσευς");
    assert.equal(normalizeAnswer("ß"), "ß");
  });
  it("F1 counts repeated tokens as a multiset", () => {
    assert.equal(f1Score("paris paris", ["paris"]), 2 / 3);
    assert.equal(
      f1Score("paris", ["paris paris"]),
      2 / 3,
      "a gold token repeated more often than predicted counts once",
    );
  });
  it("noanswer is all or nothing like yes/no", () => {
    assert.equal(f1Score("noanswer at all", ["noanswer"]), 0);
    assert.equal(exactMatch("No answer", ["noanswer"]), 0);
  });
  it("no gold answers scores 0", () => {
    assert.equal(exactMatch("x", []), 0);
    assert.equal(f1Score("x", []), 0);
  });
});

// Mutation-testing gaps (issue 31).
describe("score (yes/no detection reads whole answers)", () => {
  it("a yes/no gold is all or nothing when the prediction is the longer side too", () => {
    assert.equal(f1Score("yes", ["yes it is"]), 0);
    assert.equal(f1Score("no", ["no it was not"]), 0);
  });
  it("a two-word answer that only spells noanswer without its space is scored as text, on either side", () => {
    // "no answer" is two tokens, not the noanswer label: partial credit as for any words
    assert.ok(Math.abs(f1Score("no answer", ["no answer given"]) - 0.8) < 1e-12);
    assert.ok(Math.abs(f1Score("no answer given", ["no answer"]) - 0.8) < 1e-12);
  });
});
