/**
 * `agent-lab playground`, the Chat with Model panel's process, spoken to as the panel does: JSON
 * requests on stdin, prefixed replies on stdout. A split item's episode runs turn by turn (the
 * environment's search between them) and is saved as a run; a bad setting is one error line and
 * the chat goes on; the API key in its environment appears in no reply and no file it wrote.
 */
import { strict as assert } from "node:assert";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { buildIndex } from "../../../src/core/base/search";
import { prepareData } from "../../../src/core/envs/hotpotqa/prepare";
import { generateSyntheticHotpot } from "../../../src/core/envs/hotpotqa/synthetic-world";
import { parseReplyLine, type PlaygroundReply } from "../../../src/core/views/playground/protocol";
import { readRun } from "../../../src/core/base/runs/run-files";
import { REPO, testCli } from "./cli-process";
import { environmentMetrics } from "../../../src/core/envs/catalog";

const SECRET = "tml-playground-test-secret-0123456789";

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

describe("cli: agent-lab playground (the Chat with Model panel's process)", function () {
  this.timeout(180_000);
  let ws: string;
  let child: ChildProcess | undefined;

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-playground-cli-"));
    const world = generateSyntheticHotpot({ seed: 5, train: 150, dev: 720, style: "compact" });
    mkdirSync(join(ws, "hotpot"));
    writeFileSync(join(ws, "hotpot", "train.json"), JSON.stringify(world.train));
    writeFileSync(join(ws, "hotpot", "dev.json"), JSON.stringify(world.dev));
    await prepareData(join(ws, "data"), {
      trainFiles: [join(ws, "hotpot", "train.json")],
      devFiles: [join(ws, "hotpot", "dev.json")],
      source: "test world",
    });
    await buildIndex(join(ws, "data", "corpus.jsonl"), join(ws, "data", "bm25"), { workers: 0 });
  });
  after(() => {
    child?.kill();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  it("runs a split item turn by turn, refuses a bad setting in one line, saves the run; the key is in no reply or file", async () => {
    const cli = await testCli();
    child = spawn(process.execPath, [cli, "playground", "--backend", "scripted", "--workspace", ws], {
      cwd: REPO,
      env: { ...process.env, TINKER_API_KEY: SECRET },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const replies: PlaygroundReply[] = [];
    const raw: string[] = [];
    const waiters: (() => void)[] = [];
    createInterface({ input: child.stdout! }).on("line", (line) => {
      raw.push(line);
      const r = parseReplyLine(line);
      if (r) replies.push(r);
      waiters.splice(0).forEach((w) => w());
    });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    /** Sends a request and waits for the next reply. */
    const ask = async (request: object): Promise<PlaygroundReply> => {
      const seen = replies.length;
      if (Object.keys(request).length) child!.stdin!.write(JSON.stringify(request) + "\n");
      const until = Date.now() + 60_000;
      while (replies.length === seen) {
        if (Date.now() > until) throw new Error(`no reply to ${JSON.stringify(request)}; stderr: ${stderr}`);
        await new Promise<void>((r) => waiters.push(r));
      }
      return replies[seen];
    };

    const ready = await ask({});
    assert.equal(ready.type, "ready");
    assert.ok(ready.type === "ready" && ready.tools.length > 0 && ready.systemPrompt);
    const items = await ask({ op: "items", split: "val" });
    assert.ok(items.type === "items" && items.items.length > 0);
    const id = items.type === "items" ? items.items[0].id : "";
    const started = await ask({ op: "start", question: { split: "val", id } });
    assert.ok(started.type === "episode" && !started.episode.done && started.episode.scored);

    const refused = await ask({ op: "turn", temperature: 5, maxTokens: 64 });
    assert.deepEqual(refused, {
      type: "error",
      op: "turn",
      message: "temperature 5 is out of range: use a number from 0 to 2",
    });

    let turns = 0;
    for (;;) {
      const r = await ask({ op: "turn", temperature: 0, maxTokens: 256 });
      assert.equal(r.type, "episode", JSON.stringify(r));
      turns++;
      if (r.type === "episode" && r.episode.done) {
        assert.equal(r.episode.turns.length, turns);
        assert.ok(r.episode.view.sampledCount > 0 && r.episode.view.insertedCount > 0);
        break;
      }
      assert.ok(turns < 10);
    }
    assert.ok(turns >= 2, "the scripted reader searches, then answers");
    const saved = await ask({ op: "save", name: "chat-cli" });
    assert.deepEqual(saved, { type: "saved", name: "chat-cli", runDir: join(ws, "runs", "chat-cli") });
    assert.equal(readRun(join(ws, "runs", "chat-cli"), environmentMetrics).episodes.length, 1);

    child.stdin!.end();
    const code = await new Promise<number | null>((r) => child!.on("close", r));
    assert.equal(code, 0, stderr);
    assert.ok(!raw.join("\n").includes(SECRET) && !stderr.includes(SECRET), "the key is in no reply");
    for (const f of files(ws)) assert.ok(!readFileSync(f).includes(SECRET), `the key is in ${f}`);
  });
});
