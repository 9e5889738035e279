import assert from "node:assert/strict";
import { MergeTable } from "../../../../../src/core/base/chat/merge-table";

describe("chat: the merge table", () => {
  it("finds every pair it holds, gives a repeated pair its later rank, and misses pairs it lacks", () => {
    const table = new MergeTable(50_000);
    for (let rank = 0; rank < 50_000; rank++) table.add(rank % 300, Math.floor(rank / 300), rank, 1_000_000 + rank);
    table.add(5, 0, 60_000, 1_000_005); // already there at rank 5
    for (let rank = 1; rank < 50_000; rank += 7) {
      const slot = table.find(rank % 300, Math.floor(rank / 300));
      assert.ok(slot >= 0);
      assert.equal(table.rankAt(slot), rank);
      assert.equal(table.mergedAt(slot), 1_000_000 + rank);
    }
    assert.equal(table.rankAt(table.find(5, 0)), 60_000);
    assert.equal(table.find(300, 0), -1);
    assert.equal(table.find(0, 5_000), -1);
  });
});
