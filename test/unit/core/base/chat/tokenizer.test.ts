import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import { loadTokenizer } from "../../../../../src/core/base/chat/hf-tokenizer";
import { offlineTokenizer, qwen3TokenizerFolder } from "../../../../../src/core/base/chat/offline-tokenizer";
import { chatPrompt, EMPTY_THINK, userTurnText } from "../../../../../src/core/base/chat/turns";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { requireSharedData } from "../../../../helpers/shared-data";

describe("chat: tokenizer", function () {
  let tok: ChatTokenizer;
  before(async () => {
    tok = await offlineTokenizer();
  });

  it("loads the shipped Qwen3 tokenizer once per process, named by folder and file hash", async () => {
    assert.match(tok.name, /^models@[0-9a-f]{12}$/);
    assert.equal(await offlineTokenizer("qwen3"), tok);
  });

  it("encodes without added tokens, maps special-token text to its id, and round-trips text", () => {
    assert.deepEqual(tok.encode("<|im_start|>user\nHi<|im_end|>"), [151644, 872, 198, 13048, 151645]);
    const text = "Arthur's Magazine (1844–1846), Zoë, 北京 🙂";
    assert.equal(tok.decode(tok.encode(text)), text);
    assert.equal(
      tok.decode(tok.encode("<answer>x</answer><|im_end|>"), { skipSpecialTokens: true }),
      "<answer>x</answer>",
    );
    assert.equal(tok.decode([]), "");
  });

  it("looks up single tokens exactly and refuses unknown ones", () => {
    assert.equal(tok.tokenId("<|im_end|>"), 151645);
    assert.equal(tok.tokenId("<think>"), 151667);
    assert.throws(() => tok.tokenId("<|not_a_token|>"), UserError);
  });

  it("renders with thinking disabled: the generation prompt holds the empty think block", () => {
    const ids = chatPrompt(tok, "S", "Q");
    assert.equal(
      tok.decode(ids),
      `<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n${EMPTY_THINK}`,
    );
    assert.deepEqual(ids.slice(-4), [151667, 271, 151668, 271]); // <think> "\n\n" </think> "\n\n"
  });

  it("reads a local folder without touching the network", async () => {
    const { env } = await import("@huggingface/transformers");
    const realFetch = env.fetch;
    let fetched = 0;
    env.fetch = async (...args: Parameters<typeof realFetch>) => {
      fetched++;
      return realFetch(...args);
    };
    try {
      // A template override makes a fresh cache entry, so this really loads again.
      const custom = await loadTokenizer(qwen3TokenizerFolder(), {
        chatTemplate: "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}",
      });
      assert.equal(fetched, 0);
      assert.notEqual(custom, tok);
      assert.match(custom.name, /^models@[0-9a-f]{12}\+template:[0-9a-f]{12}$/);
      assert.equal(custom.renderChat([{ role: "user", content: "hi" }], { addGenerationPrompt: true }), "[user]hi");
    } finally {
      env.fetch = realFetch;
    }
  });

  it("says clearly when a tokenizer folder is missing, instead of trying the hub", async () => {
    await assert.rejects(
      loadTokenizer("./no/such/tokenizer"),
      (e: Error) => e instanceof UserError && /tokenizer folder not found/.test(e.message),
    );
    await assert.rejects(
      loadTokenizer(join(__dirname)),
      (e: Error) => e instanceof UserError && /no tokenizer\.json/.test(e.message),
    );
  });

  it("takes a folder's chat_template.jinja when tokenizer_config.json has none, and refuses a folder with no template", async () => {
    const make = (template?: string) => {
      const dir = mkdtempSync(join(tmpdir(), "agent-lab-tok-"));
      symlinkSync(join(qwen3TokenizerFolder(), "tokenizer.json"), join(dir, "tokenizer.json"));
      const config = JSON.parse(readFileSync(join(qwen3TokenizerFolder(), "tokenizer_config.json"), "utf8")) as Record<
        string,
        unknown
      >;
      delete config.chat_template;
      writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify(config));
      if (template !== undefined) writeFileSync(join(dir, "chat_template.jinja"), template);
      return dir;
    };
    const withFile = await loadTokenizer(make("{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}"));
    assert.match(withFile.name, /\+template:[0-9a-f]{12}$/);
    assert.equal(withFile.renderChat([{ role: "user", content: "hi" }], { addGenerationPrompt: false }), "<user>hi");
    await assert.rejects(
      loadTokenizer(make()),
      (e: Error) => e instanceof UserError && /has no chat template/.test(e.message),
    );
  });

  it("asks for the Qwen3.5 template file when it is not there", async () => {
    await assert.rejects(
      offlineTokenizer("qwen3.5", { templateFile: join(__dirname, "missing.jinja") }),
      /Qwen3\.5 chat template is not at/,
    );
  });

  describe("with the Qwen3.5 template", function () {
    it("renders Qwen3.5's format (contents trimmed) with Qwen3's vocabulary", async function () {
      const file = requireSharedData(this, "qwen3_5", "qwen3_5_chat_template.jinja");
      const t35 = await offlineTokenizer("qwen3.5", { templateFile: file });
      assert.notEqual(t35, tok);
      assert.match(t35.name, /\+template:/);
      assert.equal(
        t35.decode(chatPrompt(t35, "  S\n", " Q ")),
        `<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n${EMPTY_THINK}`,
      );
    });

    it("every special token the stitched turns use is a single token in Qwen3.5 too", function () {
      const file = requireSharedData(this, "qwen3_5", "qwen3_5_special_tokens.json");
      const specials = JSON.parse(readFileSync(file, "utf8")) as Record<string, number>;
      const used = userTurnText("x").match(/<\|[a-z_]+\|>|<\/?think>/g)!;
      assert.deepEqual([...new Set(used)].sort(), ["</think>", "<think>", "<|im_end|>", "<|im_start|>"]);
      for (const t of used) assert.equal(typeof specials[t], "number", `${t} is not a Qwen3.5 special token`);
    });
  });
});
