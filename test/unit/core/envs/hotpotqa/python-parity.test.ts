/**
 * The Python-compatibility pieces against python3 itself: random.Random(0) shuffles (at the sizes
 * of HotpotQA's dev and train splits), seeding, random(), and json.dumps(ensure_ascii=False).
 */
import assert from "node:assert/strict";
import { pyJsonDumps } from "../../../../../src/core/base/data/python-json";
import { PyRandom } from "../../../../../src/core/base/data/python-random";
import { pyStrip, pySplit } from "../../../../../src/core/base/data/python-text";
import { runPython, skipWithoutPython } from "../../base/data/helpers";

describe("data: Python parity", function () {
  before(function () {
    skipWithoutPython(this);
  });

  it("shuffles list(range(7405)) then list(range(90447)) with one Random(0) exactly like CPython", function () {
    const py = runPython(`
import json, random
rng = random.Random(0)
dev = list(range(7405)); rng.shuffle(dev)
train = list(range(90447)); rng.shuffle(train)
print(json.dumps([dev, train, rng.getrandbits(32), rng.random()]))
`)!;
    const [dev, train, bits, float] = JSON.parse(py) as [number[], number[], number, number];
    const rng = new PyRandom(0);
    const myDev = rng.shuffle(Array.from({ length: 7405 }, (_, i) => i));
    const myTrain = rng.shuffle(Array.from({ length: 90447 }, (_, i) => i));
    assert.deepEqual(myDev, dev);
    assert.deepEqual(myTrain, train);
    assert.equal(rng.getrandbits(32), bits);
    assert.equal(rng.random(), float);
  });

  it("seeds like random.Random(n) for small, negative and multi-word seeds", function () {
    const seeds = [1, 42, -7, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER];
    const py = runPython(
      `
import json, random, sys
out = []
for s in json.loads(sys.argv[1]):
    r = random.Random(s)
    x = list(range(50)); r.shuffle(x)
    out.append([x, [r.getrandbits(k) for k in (1, 5, 17, 31, 32)], r.random()])
print(json.dumps(out))
`,
      [JSON.stringify(seeds)],
    )!;
    const expected = JSON.parse(py) as unknown[];
    seeds.forEach((s, i) => {
      const r = new PyRandom(s);
      const x = r.shuffle(Array.from({ length: 50 }, (_, k) => k));
      assert.deepEqual([x, [1, 5, 17, 31, 32].map((k) => r.getrandbits(k)), r.random()], expected[i], `seed ${s}`);
    });
  });

  it("writes json.dumps(row, ensure_ascii=False) bytes for nasty strings and numbers", function () {
    // lone surrogates are out of scope: Python cannot write them to a UTF-8 file either
    const strings = [
      "",
      "plain",
      'quote " and \\ backslash',
      "/slash",
      "\x00\x01\x02\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x1b\x1f",
      "\x7f DEL",
      "\x80\x85\x9f C1",
      "\u2028\u2029 separators",
      "😀 emoji 𝐀",
      "é ß ΟΔΥΣΣΕΥΣ İ 中文 \ufeff\u200b",
      "tab\tnew\nline\r",
      "</script>",
      "\u00a0\u3000",
    ];
    const rows = strings.map((s, i) => ({
      id: i,
      s,
      list: [s, i, true, null],
      nested: { [s]: [] as unknown[], k: {} },
    }));
    const numbers = [
      0,
      -1,
      3,
      2 ** 53 - 1,
      0.5,
      -2.25,
      1e-4,
      1.5e-5,
      123456789.125,
      1e16,
      1.7976931348623157e308,
      5e-324,
      0.1 + 0.2,
    ];
    const py = runPython(
      `
import json, sys
data = json.load(sys.stdin)
for row in data["rows"]:
    print(json.dumps(row, ensure_ascii=False))
print(json.dumps([float(x) if isinstance(x, float) or abs(x) >= 2**53 else x for x in data["numbers"]], ensure_ascii=False))
`,
      [],
      JSON.stringify({ rows, numbers }),
    )!;
    const lines = py.split("\n");
    rows.forEach((row, i) => assert.equal(pyJsonDumps(row), lines[i], `row ${i}`));
    assert.equal(pyJsonDumps(numbers), lines[rows.length]);
  });

  it("strip() and split() use Python's whitespace set over every code point", function () {
    const py = runPython(`
import json
print(json.dumps([c for c in range(0x110000) if not 0xD800 <= c < 0xE000 and chr(c).isspace()]))
`)!;
    const spaces = new Set(JSON.parse(py) as number[]);
    for (let c = 0; c < 0x110000; c++) {
      if (c >= 0xd800 && c < 0xe000) continue;
      const ch = String.fromCodePoint(c);
      const isSpace = pyStrip(`x${ch}`) === "x";
      if (isSpace !== spaces.has(c)) assert.fail(`U+${c.toString(16)}: strip ${isSpace}, Python ${spaces.has(c)}`);
      if (isSpace !== (pySplit(`a${ch}b`).length === 2)) assert.fail(`U+${c.toString(16)}: split disagrees with strip`);
    }
  });
});
