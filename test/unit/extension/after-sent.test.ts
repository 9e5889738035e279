/**
 * afterSent runs after VS Code's protocol writes what the host sent (a setTimeout(0) flush set
 * first), also from an I/O callback, where a setImmediate callback would run ahead of it.
 */
import { strict as assert } from "node:assert";
import { readFile } from "node:fs";
import { afterSent } from "../../../src/extension/webview/after-sent";

function orderFrom(schedule: (then: () => void) => void): Promise<string[]> {
  return new Promise((resolve) => {
    const order: string[] = [];
    readFile(__filename, () => {
      setTimeout(() => order.push("protocol writes"), 0); // what postMessage / webview.html leave queued
      schedule(() => {
        order.push("panel work");
        setTimeout(() => resolve(order), 5);
      });
    });
  });
}

describe("extension: panel work waits until what the host sent is written", () => {
  it("runs after the protocol's pending write", async () => {
    assert.deepEqual(await orderFrom(afterSent), ["protocol writes", "panel work"]);
  });

  it("where setImmediate would have run first (what held a new panel's webview)", async () => {
    assert.deepEqual(await orderFrom((then) => setImmediate(then)), ["panel work", "protocol writes"]);
  });
});
