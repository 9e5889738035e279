/**
 * `agent-lab pipeline --backend tinker --rehearse`: the paid path end to end through the real CLI,
 * against the project's real local backend over HTTP (TINKER_BASE_URL, a fake tml- key), on the
 * real shared HotpotQA records, and on a synthetic twin so a user's clone runs it too. Between the
 * CLI and the backend sits a logging proxy: the request log shows every stage went through the
 * Tinker client (sampling sessions on the base model and on the SFT and GRPO checkpoints, two LoRA
 * trainings with forward_backward and optim_step), whatever the backend does inside.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat";
import { readRegistry, registryPath } from "../../../src/core/base/checkpoints/registry";
import { generateSyntheticHotpot } from "../../../src/core/envs/hotpotqa/synthetic-world";
import { RUN_NAMES } from "../../../src/core/steps/pipeline/plan";
import { startLocalBackend, type RunningLocalBackend } from "../../../src/server";
import { sharedDataPath } from "../../helpers/shared-data";
import { runCli } from "./cli-process";

interface LoggedRequest {
  method: string;
  /** The endpoint after /api/v1/ (ids in the path kept). */
  endpoint: string;
  /** JSON bodies, parsed (protobuf ones are only counted). */
  json?: Record<string, unknown>;
}

/** Forwards every request to `target` and logs it: what the CLI's Tinker client sent, seen from outside. */
async function loggingProxy(
  target: string,
): Promise<{ url: string; log: LoggedRequest[]; close: () => Promise<void> }> {
  const log: LoggedRequest[] = [];
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const entry: LoggedRequest = {
        method: req.method ?? "GET",
        endpoint: (req.url ?? "").split("?")[0].replace(/^\/api\/v1\//, ""),
      };
      if (String(req.headers["content-type"] ?? "").includes("json") && body.length)
        entry.json = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
      log.push(entry);
      const out = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (up: IncomingMessage) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      out.on("error", () => res.writeHead(502).end());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, log, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const STAGES = [
  "world",
  "prepare",
  "index",
  "eval-closed-book",
  "eval-base",
  "sft-data",
  "train-sft",
  "eval-sft",
  "train-grpo",
  "eval-grpo",
  "ablate",
];
const EVAL_RUNS = [RUN_NAMES.closedBook, RUN_NAMES.base, RUN_NAMES.sftEval, RUN_NAMES.grpoEval];

describe("cli: agent-lab pipeline --backend tinker --rehearse", function () {
  this.timeout(120_000);
  let root: string;
  let backend: RunningLocalBackend;
  let proxy: Awaited<ReturnType<typeof loggingProxy>>;
  let standInName: string;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-rehearse-"));
    backend = await startLocalBackend({ dir: join(root, "backend"), port: 0 });
    proxy = await loggingProxy(backend.url);
    standInName = (await offlineTokenizer("qwen3")).name;
  });
  after(async () => {
    await proxy?.close();
    await backend?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const env = () => ({ TINKER_BASE_URL: proxy.url, TINKER_API_KEY: "tml-rehearsal-fake-key" });

  /** Runs the rehearsal on the given records and checks everything the paid path must have done. */
  async function rehearse(name: string, train: string, dev: string): Promise<void> {
    const dir = join(root, name);
    const first = proxy.log.length;
    const r = await runCli(
      [
        "pipeline",
        "--backend",
        "tinker",
        "--rehearse",
        "--train",
        train,
        "--dev",
        dev,
        "--dir",
        dir,
        "--yes",
        "--resamples",
        "200",
      ],
      env(),
    );
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const out = r.stdout;
    const requests = proxy.log.slice(first);

    // The estimate comes first, priced free because the server said it is the local stand-in.
    assert.match(
      out,
      /^rehearsal against http:\/\/127\.0\.0\.1:\d+ \(Agent Lab's local stand-in, priced at \$0\): tokenizer stand-in offline:qwen3 .*numbers mean nothing$/m,
    );
    assert.ok(out.includes(`manifests record it as ${standInName}`), "the note names what the manifests record");
    const estimate = out.indexOf("estimated cost: ≈ $0.00 in all");
    assert.ok(estimate >= 0 && estimate < out.indexOf("1/11 world"), "the estimate is printed before the first stage");
    for (const [i, stage] of STAGES.entries())
      assert.match(out, new RegExp(`\\] ${i + 1}/11 ${stage}: `), `stage ${stage} ran`);
    assert.match(out, /splits \(test 100, val 100, train\)/);

    // Every manifest records the stand-in tokenizer; evals sampled through the Tinker policy on the recipe's model.
    const runs = join(dir, "runs");
    for (const run of EVAL_RUNS) {
      const m = JSON.parse(readFileSync(join(runs, run, "manifest.json"), "utf8")) as {
        tokenizer: string;
        policy: { kind: string; model: string };
      };
      assert.equal(m.tokenizer, standInName, `${run} records the stand-in`);
      assert.deepEqual([m.policy.kind, m.policy.model], ["tinker", "Qwen/Qwen3.5-4B"], run);
    }
    const sftData = JSON.parse(readFileSync(join(runs, RUN_NAMES.sftData, "manifest.json"), "utf8")) as {
      fingerprint: { tokenizer: string; source: { role: string; kind: string } };
    };
    assert.equal(sftData.fingerprint.tokenizer, standInName);
    assert.deepEqual(
      [sftData.fingerprint.source.role, sftData.fingerprint.source.kind],
      ["self", "tinker"],
      "the model sampled its own data",
    );
    for (const run of [RUN_NAMES.sft, RUN_NAMES.grpo]) {
      const m = JSON.parse(readFileSync(join(runs, run, "manifest.json"), "utf8")) as {
        tokenizer: string;
        backend: string;
        base_model: string;
      };
      assert.deepEqual([m.tokenizer, m.backend, m.base_model], [standInName, "tinker", "Qwen/Qwen3.5-4B"], run);
    }
    assert.ok(readdirSync(runs).filter((n) => existsSync(join(runs, n, "manifest.json"))).length >= 7);

    // The request log: all of it went to the server in TINKER_BASE_URL, through the client.
    const count = (endpoint: string) => requests.filter((q) => q.endpoint === endpoint).length;
    const lora = requests.filter((q) => q.endpoint === "create_model");
    assert.equal(lora.length, 2, "one LoRA for SFT, one for GRPO");
    assert.ok(lora.every((q) => q.json?.base_model === "Qwen/Qwen3.5-4B"));
    assert.ok(
      count("forward_backward") >= 2 && count("optim_step") >= 2,
      `SFT's two steps were trained (${count("forward_backward")} forward_backward)`,
    );
    assert.ok(count("asample") > 0 && count("retrieve_future") > 0);
    const registry = readRegistry(registryPath(runs));
    const samplerPath = (n: string) => registry.find((e) => e.name === n)?.sampler_path;
    const sessions = requests.filter((q) => q.endpoint === "create_sampling_session").map((q) => q.json ?? {});
    assert.ok(
      sessions.filter((b) => b.base_model === "Qwen/Qwen3.5-4B" && !b.model_path).length >= 3,
      "closed-book, base and sft-data sampled the base model",
    );
    for (const ckpt of [`${RUN_NAMES.sft}-e1`, `${RUN_NAMES.grpo}-s1`]) {
      assert.ok(samplerPath(ckpt), `${ckpt} is registered`);
      assert.ok(
        sessions.some((b) => b.model_path === samplerPath(ckpt)),
        `an eval sampled ${ckpt} through the server`,
      );
    }
    assert.ok(
      count("save_weights_for_sampler") >= 2 && count("save_weights") >= 2,
      "sampler and state checkpoints saved on the server",
    );

    // The ablation table, and the report that says what the numbers are.
    assert.match(out, /^run\s+F1\s+95% CI\s+EM/m);
    for (const run of ["base", "closed-book", "sft-final", "grpo-final"])
      assert.match(out, new RegExp(`^${run}\\s+\\d\\.\\d{3}\\s+\\[`, "m"));
    assert.match(readFileSync(join(dir, "report.md"), "utf8"), /^> rehearsal against .*numbers mean nothing$/m);
  }

  it("runs every stage of the paid recipe on the real shared HotpotQA records, ending with the ablation table", async function () {
    const train = sharedDataPath("hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    const dev = sharedDataPath("hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    if (!train || !dev) {
      console.log(
        "      skipped: ../shared/data/hotpotqa/*_partial.jsonl is not present (real-data test; the synthetic twin below runs instead)",
      );
      this.skip();
    }
    await rehearse("hotpot", train!, dev!);
  });

  it("runs the same on a synthetic world in HotpotQA's shape (what a user's clone runs)", async () => {
    const world = generateSyntheticHotpot({ seed: 11, train: 30, dev: 200 });
    const files = join(root, "world");
    mkdirSync(files, { recursive: true });
    writeFileSync(join(files, "train.json"), JSON.stringify(world.train));
    writeFileSync(join(files, "dev.json"), JSON.stringify(world.dev));
    await rehearse("synthetic", join(files, "train.json"), join(files, "dev.json"));
  });

  it("asks before any stage runs, naming the server, and writes nothing without --yes", async () => {
    const dir = join(root, "unconfirmed");
    const world = join(root, "world");
    const r = await runCli(
      [
        "pipeline",
        "--backend",
        "tinker",
        "--rehearse",
        "--train",
        join(world, "train.json"),
        "--dev",
        join(world, "dev.json"),
        "--dir",
        dir,
      ],
      env(),
    );
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /this rehearsal sends every stage to http:\/\/127\.0\.0\.1:\d+ and spends up to ≈ \$0\.00; pass --yes to confirm without a prompt/,
    );
    assert.equal(existsSync(dir), false);
  });

  it("--dry-run needs no key or server: the tiny plan at the recipe's prices, cents in all, nothing written", async () => {
    const dir = join(root, "dry");
    const r = await runCli(["pipeline", "--backend", "tinker", "--rehearse", "--dry-run", "--dir", dir], {
      TINKER_API_KEY: "",
      TINKER_BASE_URL: "",
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^rehearsal: tokenizer stand-in offline:qwen3 /m);
    assert.match(r.stdout, /download HotpotQA \(distractor\) from the Hugging Face hub/);
    const usd = Number(/estimated cost: ≈ \$(\d+\.\d\d) in all/.exec(r.stdout)?.[1]);
    assert.ok(usd > 0 && usd < 0.1, `≈ $${usd}`);
    assert.equal(existsSync(dir), false);
  });

  it("refuses --rehearse on the local backend and a missing --dev file, in one line each", async () => {
    const local = await runCli(["pipeline", "--rehearse", "--dir", join(root, "x")], env());
    assert.equal(local.code, 1);
    assert.match(local.stderr, /--rehearse needs --backend tinker/);
    const missing = await runCli(
      [
        "pipeline",
        "--backend",
        "tinker",
        "--rehearse",
        "--train",
        join(root, "world", "train.json"),
        "--dev",
        join(root, "nope.json"),
        "--dir",
        join(root, "y"),
        "--yes",
      ],
      env(),
    );
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /--dev .*nope\.json: no such file/);
    assert.equal(missing.stderr.trim().split("\n").length, 1, missing.stderr);
    assert.equal(existsSync(join(root, "y")), false);
  });
});
