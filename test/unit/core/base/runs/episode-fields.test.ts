/**
 * ablate and Compare read runs with readEpisodeFields: each line checked against JSON's grammar,
 * only the fields ablate reads built (json-fields.ts). What it gives must be what JSON.parse of
 * the whole line gives, and a line JSON.parse refuses must be refused the same way: on the
 * episodes the eval writes for both environments (a GSM8K fixture-twin run, HotpotQA episodes of
 * the real harness), on hand-made lines of every JSON shape, and on thousands of damaged copies.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { FileFormatError } from "../../../../../src/core/base/errors";
import { ABLATE_FIELDS } from "../../../../../src/core/base/runs/episode-record";
import { pickJsonFields } from "../../../../../src/core/base/runs/json-fields";
import { readEpisodeFields, readEpisodes, readRun } from "../../../../../src/core/base/runs/run-files";
import { mulberry32 } from "../../../../../src/core/base/util/mulberry32";
import { ScriptedPolicy } from "../../../../../src/core/harness/policies/scripted";
import {
  ablate,
  ABLATION_EPISODE_FIELDS,
  loadAblationInputs,
  readAblationInputs,
} from "../../../../../src/core/steps/ablate/ablate";
import { requireSharedData } from "../../../../helpers/shared-data";
import { scriptedEval } from "../../../../helpers/scripted-eval";
import { prepareFixtureTwin } from "../../envs/gsm8k/fixture";
import { readHotpot, realEpisode } from "../../views/trace/real-episodes";
import { fakeManifest, fakeRecord } from "./fakes";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

const KEYS = new Set<string>(["format", "em", "f1", ...ABLATION_EPISODE_FIELDS]);

/** What JSON.parse gives for `keys` of a line, or undefined when it refuses the line or it holds no object. */
function parsedFields(line: string, keys: ReadonlySet<string>): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined; // refused: pickJsonFields must refuse it too
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (keys.has(k)) out[k] = v;
  return out;
}

/** pickJsonFields agrees with JSON.parse on `line`: the same fields, values and key order, or both refuse. */
function agrees(line: string, keys: ReadonlySet<string> = KEYS): void {
  const picked = pickJsonFields(line, keys);
  const parsed = parsedFields(line, keys);
  assert.deepEqual(picked, parsed, line.length > 300 ? `${line.slice(0, 300)}…` : line);
  if (picked) assert.deepEqual(Object.keys(picked), Object.keys(parsed!), "key order");
}

/** A damaged copy of `line`: a character dropped, doubled, replaced by one of JSON's, or the line cut. */
function damage(line: string, random: () => number): string {
  const at = Math.floor(random() * line.length);
  const alphabet = '{}[]",:. -+eE0159tfnul\\/\t\n\u0001é';
  const char = alphabet[Math.floor(random() * alphabet.length)];
  switch (Math.floor(random() * 4)) {
    case 0:
      return line.slice(0, at) + line.slice(at + 1);
    case 1:
      return line.slice(0, at) + line[at] + line.slice(at);
    case 2:
      return line.slice(0, at) + char + line.slice(at + 1);
    default:
      return line.slice(0, at);
  }
}

describe("episode fields read without the rest of the line (ablate's and Compare's reader)", function () {
  this.timeout(180_000);
  let root: string;
  let gsm8kRun: string;
  let hotpotRun: string;
  const lines = (run: string) => readFileSync(join(run, "episodes.jsonl"), "utf8").split("\n").filter(Boolean);

  before(async function () {
    const shared = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    root = mkdtempSync(join(tmpdir(), "agent-lab-episode-fields-"));
    const tok = await offlineTokenizer("qwen3");
    await prepareFixtureTwin(join(root, "data"), join(root, "raw"));
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", maxTokens: 96 });
    let n = 0;
    const policy = new ScriptedPolicy(tok, (ctx) => {
      const m = /Rosa has (\d+) marbles and wins (\d+) more/.exec(ctx.promptText.split("<|im_start|>user").at(-1)!)!;
      const sum = Number(m[1]) + Number(m[2]);
      return n++ % 3 === 0 ? `Adding: \\boxed{${sum}}` : n % 3 === 1 ? `Maybe \\boxed{${sum + 1}}` : "I am not sure.";
    });
    await scriptedEval({ workspaceDir: root, config, name: "gsm8k-val", split: "val", limit: 12, policy });
    gsm8kRun = join(root, "runs", "gsm8k-val");
    const rows = readHotpot(shared).slice(0, 12);
    const eps = await Promise.all(
      rows.map((r, i) =>
        realEpisode(tok, r, [
          `<search>${r.context[0][0]}</search>`,
          i % 2 ? `<answer>${r.answer}</answer>` : "<answer>no idea</answer>",
        ]),
      ),
    );
    hotpotRun = join(root, "runs", "hotpot-val");
    mkdirSync(hotpotRun, { recursive: true });
    writeFileSync(join(hotpotRun, "manifest.json"), JSON.stringify({ tokenizer: tok.name, split: { name: "val" } }));
    writeFileSync(join(hotpotRun, "episodes.jsonl"), eps.map((e) => JSON.stringify(e)).join("\n") + "\n");
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("gives JSON.parse's values for the eval's lines of both environments", () => {
    for (const run of [gsm8kRun, hotpotRun]) {
      const all = lines(run);
      assert.ok(all.length >= 12);
      for (const line of all) {
        agrees(line);
        // Any top-level field, the token arrays and the turns too.
        agrees(line, new Set(Object.keys(JSON.parse(line) as object)));
      }
    }
  });

  it("reads a run as readEpisodes does: the same fields and values, and the same ablate report", () => {
    for (const run of [gsm8kRun, hotpotRun]) {
      const whole = readEpisodes(run, environmentMetrics, ABLATE_FIELDS);
      const fields = readEpisodeFields(run, environmentMetrics, ABLATION_EPISODE_FIELDS, ABLATE_FIELDS);
      assert.deepEqual(
        fields.map((e) => ABLATION_EPISODE_FIELDS.map((k) => e[k])),
        whole.map((e) => ABLATION_EPISODE_FIELDS.map((k) => e[k])),
      );
    }
    const now = new Date(0);
    const wholeInputs = readAblationInputs([hotpotRun, hotpotRun], (dir) =>
      readRun(dir, environmentMetrics, ABLATE_FIELDS),
    );
    assert.deepEqual(ablate(loadAblationInputs([hotpotRun, hotpotRun]), { now }), ablate(wholeInputs, { now }));
    const gsm = readAblationInputs([gsm8kRun], (dir) => readRun(dir, environmentMetrics, ABLATE_FIELDS));
    assert.deepEqual(ablate(loadAblationInputs([gsm8kRun]), { now }), ablate(gsm, { now }));
  });

  it("agrees with JSON.parse on every JSON shape: escapes, repeated keys, space, nesting, numbers, long arrays", () => {
    const cases = [
      "{}",
      " { } ",
      '{"id":"a"}',
      '{"id":"a","id":"b"}',
      '{"id":"a","metrics":{"em":1},"id":"c","usd":0}',
      '{"\\u0069d":"escaped key","u\\u0073d":1e-3}',
      '{"id":"\\"quoted\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9 \\ud83d\\ude42 \\udc00"}',
      '\t{ "id" : "a" ,\n"usd":\r-0.0 , "tokens" : [ 1 , 2 ,3 ] , "x": [ ] , "y" : { } }\n',
      '{"usd":-0,"a":0.5e+10,"b":1E-7,"c":-12.75,"d":123456789012345678901234567890,"e":1e400}',
      '{"id":"a","tokens":[1,2,3],"logprobs":[-0.5,0,-1.25e-7,3E+2],"x":[1,"a",null,true,false,{"k":[]}]}',
      '{"id":"a","turns":[{"start":0,"hits":[{"id":3,"title":"T","score":7.6}]},{"end":1}],"searches":[]}',
      '{"id":"a","nested":[[[[[[[[[[1]]]]]]]]]],"o":{"a":{"b":{"c":{"d":[{}]}}}}}',
      '{"id":"日本語 🙂","question":"é","answers":["x"],"end":"answer","format":2}',
      '{"id":"a","__proto__":{"x":1},"metrics":{"__proto__":1}}',
      '{"id":"a","tokens":[' + Array.from({ length: 5000 }, (_, i) => i).join(",") + "]}",
      '{"id":"a","tokens":[' + Array.from({ length: 2048 }, () => 1).join(",") + "]}",
      '{"id":"a","tokens":[' + Array.from({ length: 2047 }, () => 1).join(",") + ',"x"]}',
      '{"id":"a","tokens":[' + Array.from({ length: 3000 }, (_, i) => -i / 7).join(",") + "]}",
      // Refused by JSON.parse: so here too.
      "",
      " ",
      "[]",
      '"id"',
      "1",
      "null",
      '{"id":"a"} x',
      '{"id":"a"}{}',
      '{"id":"a",}',
      '{"id":"a" "usd":1}',
      "{\"id\":'a'}",
      '{id:"a"}',
      '{"id":"a\u0001"}',
      '{"id":"\\x41"}',
      '{"id":"\\u12G4"}',
      '{"usd":01}',
      '{"usd":1.}',
      '{"usd":.5}',
      '{"usd":+1}',
      '{"usd":1e}',
      '{"usd":-}',
      '{"usd":NaN}',
      '{"usd":Infinity}',
      '{"ok":tru}',
      '{"ok":nul}',
      '{"tokens":[1,2,]}',
      '{"tokens":[1,,2]}',
      '{"tokens":[1 2]}',
      '{"tokens":[1,2}',
      '{"tokens":[01]}',
      '{"x":{"a":1,}}',
      '{"x":{"a"}}',
      '{"x":[{]}',
      '{"id":"a"',
      '{"id":"a\u00a0"}\u00a0',
      '\ufeff{"id":"a"}',
      '{"id":"a"}\u2028',
    ];
    for (const line of cases) agrees(line);
  });

  it("refuses every damaged line JSON.parse refuses and reads every one it reads (4,000 damaged copies)", () => {
    const random = mulberry32(20261205);
    const sources = [...lines(gsm8kRun).slice(0, 4), ...lines(hotpotRun).slice(0, 4)];
    // Short lines, so that damage lands in every part of one often.
    sources.push(
      JSON.stringify({
        ...fakeRecord("q1"),
        turns: [{ start: 0, reply_end: 1, end: 2, action: "answer", stop_reason: "stop" }],
      }),
      '{"id":"a","metrics":{"em":1,"f1":0.5},"usd":-1.5e-3,"searches":["x \\"y\\""],"tokens":[1,2],"logprobs":[-0.25,0]}',
    );
    let refused = 0;
    for (let i = 0; i < 4000; i++) {
      let line = sources[i % sources.length];
      for (let d = 0, n = 1 + Math.floor(random() * 3); d < n; d++) line = damage(line, random);
      agrees(line);
      if (parsedFields(line, KEYS) === undefined) refused++;
    }
    assert.ok(refused > 1000, `most damaged copies are refused (${refused})`);
  });

  it("skips a torn last line and refuses a malformed one with readEpisodes' message, file and line", () => {
    const dir = join(root, "runs", "damaged");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(fakeManifest()));
    const good = [fakeRecord("q1"), fakeRecord("q2", { em: 0, f1: 0.5 })].map((r) => JSON.stringify(r));
    const torn = good[1].slice(0, 40);
    writeFileSync(join(dir, "episodes.jsonl"), `${good[0]}\n${good[1]}\n${torn}`);
    assert.deepEqual(
      readEpisodeFields(dir, environmentMetrics, ABLATION_EPISODE_FIELDS, ABLATE_FIELDS).map((e) => e.id),
      ["q1", "q2"],
    );
    const message = (read: () => unknown) => {
      try {
        read();
      } catch (e) {
        assert.ok(e instanceof FileFormatError);
        return e.message;
      }
      assert.fail("refused");
    };
    for (const bad of [torn, "[1,2]", '{"id":"q3","usd":01}', '{"id":"q3","tokens":[1,,2]}', '{"id":"q3","usd":"1"}']) {
      writeFileSync(join(dir, "episodes.jsonl"), `${good[0]}\n${bad}\n${good[1]}\n`);
      const expected = message(() => readEpisodes(dir, environmentMetrics, ABLATE_FIELDS));
      assert.match(expected, /episodes\.jsonl:2: /);
      assert.equal(
        message(() => readEpisodeFields(dir, environmentMetrics, ABLATION_EPISODE_FIELDS, ABLATE_FIELDS)),
        expected,
      );
    }
  });

  it("reads a format-1 line's metric slots as readEpisodes does", () => {
    const dir = join(root, "runs", "v1");
    mkdirSync(dir, { recursive: true });
    const v1 = (id: string, em: number, f1: number) => {
      const { format: _f, metrics: _m, ...rest } = fakeRecord(id);
      return JSON.stringify({ ...rest, em, f1 });
    };
    writeFileSync(join(dir, "episodes.jsonl"), `${v1("q1", 1, 1)}\n${v1("q2", 0, 0.4)}\n`);
    const fields = readEpisodeFields(dir, environmentMetrics, ABLATION_EPISODE_FIELDS, ABLATE_FIELDS);
    assert.deepEqual(
      fields.map((e) => e.metrics),
      readEpisodes(dir, environmentMetrics, ABLATE_FIELDS).map((e) => e.metrics),
    );
    assert.deepEqual(fields[1].metrics, { em: 0, f1: 0.4 });
  });
});
