import { strict as assert } from "node:assert";
import { mergeTermOrders, sortTerms } from "../../../../../src/core/base/search/term-order";

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

  it("merges per-worker sorted lists that overlap into the byte order of the whole vocabulary, each term once", () => {
    const ids = (list: string[]): Uint32Array => Uint32Array.from(sortTerms(list).sorted, (t) => terms.indexOf(t));
    const want = Uint32Array.from([...terms].sort(byBytes), (t) => terms.indexOf(t));
    // One worker saw no astral term (its list is in plain JS order), the other did; both saw some of the same terms.
    const a = ids(["film", "ｆｕｌｌ", "films", "zz", "café", "42", "ａ"]);
    const b = ids(["𠀀𠀁", "𝒜𝒷", "fil", "東京", "film", "cafe", "_x", "ａ", "42"]);
    assert.deepEqual(mergeTermOrders([a, b], terms, true), want);
    assert.deepEqual(mergeTermOrders([b, a], terms, true), want);
    assert.deepEqual(mergeTermOrders([ids(terms)], terms, true), want);
    assert.throws(() => mergeTermOrders([a], terms, true), /cover 7 of 13 terms/);
  });

  it("merges in plain string order when no term has a surrogate", () => {
    const plain = ["delta", "alpha", "echo", "charlie", "bravo", "ｆｕｌｌ", "é"];
    const ids = (list: string[]): Uint32Array => Uint32Array.from(sortTerms(list).sorted, (t) => plain.indexOf(t));
    const want = Uint32Array.from([...plain].sort(byBytes), (t) => plain.indexOf(t));
    const a = ids(["delta", "alpha", "ｆｕｌｌ"]);
    const b = ids(["echo", "charlie", "bravo", "é", "alpha"]);
    assert.deepEqual(mergeTermOrders([a, b], plain, false), want);
    assert.deepEqual(mergeTermOrders([b, a], plain, false), want);
  });
});
