/**
 * Loading by hub id, against a real local HTTP server standing in for huggingface.co (the library's
 * env.remoteHost points at it): files download once into the cache and load offline afterwards.
 * The repo keeps its chat template in chat_template.jinja, as newer hub repos do.
 */
import assert from "node:assert/strict";
import { createReadStream, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { forgetLoadedTokenizers, loadTokenizer } from "../../../../../src/core/base/chat/hf-tokenizer";
import { qwen3TokenizerFolder } from "../../../../../src/core/base/chat/offline-tokenizer";
import { UserError } from "../../../../../src/core/base/errors";

const REPO = "agent-lab-test/tiny-qwen";
const TEMPLATE =
  "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

describe("chat: tokenizer from a hub id", function () {
  let server: Server;
  let requests: string[];
  let saved: { remoteHost: string; cacheDir: string | null; allowRemoteModels: boolean };
  let env: typeof import("@huggingface/transformers").env;

  before(async () => {
    env = (await import("@huggingface/transformers")).env;
    saved = { remoteHost: env.remoteHost, cacheDir: env.cacheDir, allowRemoteModels: env.allowRemoteModels };
    const folder = qwen3TokenizerFolder();
    const config = JSON.parse(readFileSync(join(folder, "tokenizer_config.json"), "utf8")) as Record<string, unknown>;
    delete config.chat_template;
    requests = [];
    server = createServer((req, res) => {
      requests.push(req.url ?? "");
      const prefix = `/${REPO}/resolve/main/`;
      const file = req.url?.startsWith(prefix) ? req.url.slice(prefix.length) : "";
      if (file === "tokenizer.json") createReadStream(join(folder, file)).pipe(res);
      else if (file === "tokenizer_config.json") res.end(JSON.stringify(config));
      else if (file === "chat_template.jinja") res.end(TEMPLATE);
      else res.writeHead(404).end("not found");
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    env.remoteHost = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  after(() => {
    Object.assign(env, saved);
    forgetLoadedTokenizers();
    server.close();
  });

  it("downloads tokenizer files and the separate chat template into the cache, then loads offline", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "agent-lab-hf-cache-"));
    const tok = await loadTokenizer(REPO, { cacheDir });
    assert.equal(tok.name, REPO);
    assert.ok(
      requests.some((r) => r.endsWith("/chat_template.jinja")),
      requests.join(", "),
    );
    assert.ok(existsSync(join(cacheDir, REPO, "chat_template.jinja")));
    assert.equal(
      tok.renderChat([{ role: "user", content: "Hi" }], { addGenerationPrompt: true }),
      "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
    );
    assert.equal(tok.tokenId("<|im_end|>"), 151645);

    // Offline now: a fresh load must come from the cache alone.
    forgetLoadedTokenizers();
    requests.length = 0;
    env.allowRemoteModels = false;
    try {
      const again = await loadTokenizer(REPO, { cacheDir });
      assert.deepEqual(requests, []);
      assert.deepEqual(again.encode("Hi <|im_end|>"), tok.encode("Hi <|im_end|>"));
      assert.equal(
        again.renderChat([{ role: "user", content: "Hi" }], { addGenerationPrompt: false }),
        "<|im_start|>user\nHi<|im_end|>\n",
      );
    } finally {
      env.allowRemoteModels = true;
    }
  });

  it("names the hub id when it cannot be loaded", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "agent-lab-hf-cache-"));
    await assert.rejects(
      loadTokenizer("agent-lab-test/missing", { cacheDir }),
      (e: Error) => e instanceof UserError && /agent-lab-test\/missing/.test(e.message),
    );
  });
});
