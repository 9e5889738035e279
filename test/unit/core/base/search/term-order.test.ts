import { strict as assert } from "node:assert";
import { sortTerms } from "../../../../../src/core/base/search/term-order";

/** UTF-8 byte order, the order vocab.bin must have, straight from its definition. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

describe("search build: vocabulary order", () => {
  const terms = ["film", "ｆｕｌｌ", "𠀀𠀁", "𝒜𝒷", "films", "fil", "東京", "zz", "café", "cafe", "ａ", "_x", "42"];

  it("sorts terms in UTF-8 byte order, also where JS string order differs (astral vs fullwidth)", () => {
    const { sorted, surrogates } = sortTerms(terms);
    assert.equal(surrogates, true);
    assert.deepEqual(sorted, [...terms].sort(byBytes));
    assert.notDeepEqual([...terms].sort(), sorted, "the fixture must contain a case where UTF-16 order differs");
    assert.equal(sortTerms(["b", "a"]).surrogates, false);
  });
});
