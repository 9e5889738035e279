import { strict as assert } from "node:assert";
import { traceStyle } from "../../../src/cli/show";

describe("cli/show traceStyle", () => {
  it("colours a terminal, not a pipe; FORCE_COLOR forces it; NO_COLOR and FORCE_COLOR=0 turn it off", () => {
    assert.equal(traceStyle({}, true), "ansi");
    assert.equal(traceStyle({}, false), "plain");
    assert.equal(traceStyle({ FORCE_COLOR: "1" }, false), "ansi");
    assert.equal(traceStyle({ FORCE_COLOR: "" }, false), "ansi");
    assert.equal(traceStyle({ FORCE_COLOR: "0" }, true), "plain");
    assert.equal(traceStyle({ NO_COLOR: "1" }, true), "plain");
    assert.equal(traceStyle({ NO_COLOR: "1", FORCE_COLOR: "1" }, true), "plain");
    assert.equal(traceStyle({ NO_COLOR: "" }, true), "ansi", "an empty NO_COLOR does not count");
  });
});
