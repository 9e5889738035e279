"""Builds a tiny random-weight Qwen3 causal LM that transformers.js can load, for offline tests.

Writes into OUT_DIR:
  config.json, generation_config.json       Hugging Face config (model_type "qwen3")
  tokenizer.json, tokenizer_config.json     a ~400-token byte-level BPE with Qwen's chat specials
  model.safetensors                         the PyTorch weights (for the reference decodes)
  onnx/model.onnx                           the same model exported with KV-cache inputs/outputs
                                            named the way transformers.js feeds them
  reference.json                            greedy decodes by PyTorch `generate` on fixed prompts

The ONNX graph comes from a small hand-written forward pass (below), not from optimum, because
optimum is not on the local package index. The script checks that forward pass against the
Hugging Face model and the exported graph against onnxruntime before it writes anything final.

Usage: python make-tiny-model.py OUT_DIR
"""

import json
import math
import os
import sys

import torch
from torch import nn

VOCAB_SIZE = 400
HIDDEN = 32
LAYERS = 2
HEADS = 4
KV_HEADS = 2
HEAD_DIM = 8
SEED = 1234
# Large init so the argmax has clear margins: the ONNX and PyTorch float paths differ by ~1e-6
# and the greedy comparison must not hinge on a near-tie.
INIT_STD = 0.35
MIN_MARGIN = 1e-3
END_ROW_SCALE = 2.5

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
PLAIN_ADDED = ["<think>", "</think>"]

# Qwen-style turns; with enable_thinking false the generation prompt carries an empty think block.
CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{ '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}"
    "{{ '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false -%}"
    "{{ '<think>\\n\\n</think>\\n\\n' }}"
    "{%- endif -%}"
    "{%- endif -%}"
)

# Text the BPE merges are learned from: short sentences in the shape of the recipe's turns.
CORPUS = [
    "You are a research assistant. Search Wikipedia to answer the question.",
    "Use <search>keywords</search> to look something up and <answer>text</answer> to reply.",
    "<result>\nNo results. Try other keywords.\n</result>",
    "Which magazine was started first, Arthur's Magazine or First for Women?",
    "The Oberoi family is part of a hotel company that has a head office in what city?",
    "Were Scott Derrickson and Ed Wood of the same nationality?",
    "What government position was held by the woman who portrayed Corliss Archer?",
    "The director of the romantic comedy was born in which year?",
    "Both bands were formed in the same country during the nineteen nineties.",
    "The river flows through the capital city before it reaches the sea.",
    "An American film director, screenwriter and producer known for horror films.",
    "She served as the ambassador of the United States to Ghana and Czechoslovakia.",
    "The album was released by the record label in the spring of that year.",
    "The answer is the city of Delhi, in the north of India.",
    "<think>\n\n</think>\n\n<search>Arthur's Magazine founded</search>",
    "<answer>Arthur's Magazine</answer>",
    "0 1 2 3 4 5 6 7 8 9 10 100 1844 1989 2001",
]


def build_tokenizer(out_dir):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from tokenizers import AddedToken
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE - len(SPECIALS) - len(PLAIN_ADDED),
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS * 4, trainer=trainer)
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in PLAIN_ADDED])

    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        model_max_length=4096,
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out_dir)
    # transformers.js reads the template from tokenizer_config.json; newer Python versions put it
    # in chat_template.jinja instead, so make sure it is in the config too.
    cfg_path = os.path.join(out_dir, "tokenizer_config.json")
    with open(cfg_path) as f:
        cfg = json.load(f)
    cfg["chat_template"] = CHAT_TEMPLATE
    cfg.setdefault("tokenizer_class", "PreTrainedTokenizerFast")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f, indent=2)
    return fast


def build_model(tokenizer):
    from transformers import Qwen3Config, Qwen3ForCausalLM

    vocab = len(tokenizer)
    config = Qwen3Config(
        vocab_size=vocab,
        hidden_size=HIDDEN,
        intermediate_size=2 * HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS,
        head_dim=HEAD_DIM,
        max_position_embeddings=4096,
        rope_theta=10000.0,
        rms_norm_eps=1e-6,
        tie_word_embeddings=False,
        initializer_range=INIT_STD,
        bos_token_id=tokenizer.convert_tokens_to_ids("<|endoftext|>"),
        eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"),
        pad_token_id=tokenizer.convert_tokens_to_ids("<|endoftext|>"),
        attn_implementation="eager",
    )
    torch.manual_seed(SEED)
    model = Qwen3ForCausalLM(config).eval()
    with torch.no_grad():
        # Random norms too, so the q/k norms and the final norm are really exercised.
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.copy_(1.0 + 0.2 * torch.randn_like(p))
        # A random model almost never picks one given token, so the end-of-turn path would go
        # untested: a longer <|im_end|> output row makes it win on some prompts, not all.
        model.lm_head.weight[config.eos_token_id] *= END_ROW_SCALE
    return model


def rms_norm(x, weight, eps):
    x32 = x.float()
    return weight * (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class ExportableQwen3(nn.Module):
    """Qwen3 forward written out op by op, with the KV cache as plain tensors.

    Inputs: input_ids, attention_mask, position_ids, past_key_values.{i}.key/value
    Outputs: logits, present.{i}.key/value  (the names transformers.js uses for decoder models)
    """

    def __init__(self, hf_model):
        super().__init__()
        self.hf = hf_model
        c = hf_model.config
        self.eps = c.rms_norm_eps
        theta = c.rope_parameters["rope_theta"] if hasattr(c, "rope_parameters") else c.rope_theta
        inv = 1.0 / (theta ** (torch.arange(0, HEAD_DIM, 2, dtype=torch.float32) / HEAD_DIM))
        self.register_buffer("inv_freq", inv, persistent=False)

    def forward(self, input_ids, attention_mask, position_ids, *past):
        m = self.hf.model
        bsz, seq = input_ids.shape
        h = m.embed_tokens(input_ids)
        freqs = position_ids.float()[..., None] * self.inv_freq
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[:, None], emb.sin()[:, None]

        past_len = past[0].shape[2]
        total = past_len + seq
        key_pos = torch.arange(total)[None, :]
        query_pos = (torch.arange(seq) + past_len)[:, None]
        allowed = (key_pos <= query_pos)[None, None] & (attention_mask[:, None, None, :] > 0)
        neg = torch.finfo(torch.float32).min

        presents = []
        for i, layer in enumerate(m.layers):
            a = layer.self_attn
            x = rms_norm(h, layer.input_layernorm.weight, self.eps)
            q = a.q_proj(x).view(bsz, seq, HEADS, HEAD_DIM)
            k = a.k_proj(x).view(bsz, seq, KV_HEADS, HEAD_DIM)
            v = a.v_proj(x).view(bsz, seq, KV_HEADS, HEAD_DIM)
            q = rms_norm(q, a.q_norm.weight, self.eps).transpose(1, 2)
            k = rms_norm(k, a.k_norm.weight, self.eps).transpose(1, 2)
            v = v.transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            k = torch.cat((past[2 * i], k), dim=2)
            v = torch.cat((past[2 * i + 1], v), dim=2)
            presents += [k, v]
            groups = HEADS // KV_HEADS
            kr = k.repeat_interleave(groups, dim=1)
            vr = v.repeat_interleave(groups, dim=1)
            scores = (q @ kr.transpose(-1, -2)) / math.sqrt(HEAD_DIM)
            scores = scores.masked_fill(~allowed, neg)
            attn = torch.softmax(scores, dim=-1) @ vr
            attn = attn.transpose(1, 2).reshape(bsz, seq, HEADS * HEAD_DIM)
            h = h + a.o_proj(attn)
            x = rms_norm(h, layer.post_attention_layernorm.weight, self.eps)
            mlp = layer.mlp
            h = h + mlp.down_proj(nn.functional.silu(mlp.gate_proj(x)) * mlp.up_proj(x))
        h = rms_norm(h, m.norm.weight, self.eps)
        return (self.hf.lm_head(h), *presents)


def empty_past(batch=1, length=0):
    return [torch.zeros(batch, KV_HEADS, length, HEAD_DIM) for _ in range(2 * LAYERS)]


def check_against_hf(model, exportable):
    """The hand-written forward must match the Hugging Face model, with and without a cache."""
    torch.manual_seed(7)
    ids = torch.randint(0, model.config.vocab_size, (1, 12))
    with torch.no_grad():
        want = model(input_ids=ids).logits
        mask = torch.ones_like(ids)
        pos = torch.arange(12)[None]
        full = exportable(ids, mask, pos, *empty_past())
        first = exportable(ids[:, :8], mask[:, :8], pos[:, :8], *empty_past())
        rest = exportable(ids[:, 8:], mask, pos[:, 8:], *first[1:])
    err_full = (full[0] - want).abs().max().item()
    err_split = (rest[0] - want[:, 8:]).abs().max().item()
    if err_full > 1e-4 or err_split > 1e-4:
        raise SystemExit(f"hand-written forward differs from transformers: {err_full} / {err_split}")


def export_onnx(exportable, path):
    names_in = ["input_ids", "attention_mask", "position_ids"]
    names_out = ["logits"]
    axes = {"input_ids": {0: "batch_size", 1: "sequence_length"},
            "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
            "position_ids": {0: "batch_size", 1: "sequence_length"},
            "logits": {0: "batch_size", 1: "sequence_length"}}
    for i in range(LAYERS):
        for kind in ("key", "value"):
            pin, pout = f"past_key_values.{i}.{kind}", f"present.{i}.{kind}"
            names_in.append(pin)
            names_out.append(pout)
            axes[pin] = {0: "batch_size", 2: "past_sequence_length"}
            axes[pout] = {0: "batch_size", 2: "total_sequence_length"}
    ids = torch.tensor([[5, 6, 7]])
    example = (ids, torch.ones(1, 5, dtype=torch.long), torch.tensor([[2, 3, 4]]), *empty_past(1, 2))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.onnx.export(exportable, example, path, input_names=names_in, output_names=names_out,
                      dynamic_axes=axes, opset_version=17, dynamo=False)


def check_onnx(exportable, path):
    """onnxruntime on the exported graph must agree with PyTorch, including an empty first cache."""
    import numpy as np
    import onnxruntime as ort

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    ids = torch.tensor([[3, 50, 60, 70, 80, 90]])
    feeds = {"input_ids": ids.numpy(), "attention_mask": np.ones((1, 6), dtype=np.int64),
             "position_ids": np.arange(6, dtype=np.int64)[None]}
    for i, t in enumerate(empty_past()):
        feeds[f"past_key_values.{i // 2}.{'key' if i % 2 == 0 else 'value'}"] = t.numpy()
    got = sess.run(None, feeds)
    with torch.no_grad():
        want = exportable(ids, torch.ones(1, 6, dtype=torch.long), torch.arange(6)[None], *empty_past())
    err = max(float(np.abs(g - w.numpy()).max()) for g, w in zip(got, want))
    if err > 1e-4:
        raise SystemExit(f"onnxruntime output differs from PyTorch by {err}")


def greedy_reference(model, tokenizer, prompt_ids, max_new):
    """PyTorch `generate`, greedy, stopping at <|im_end|>; also the smallest top-1/top-2 margin."""
    end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    x = torch.tensor([prompt_ids])
    with torch.no_grad():
        out = model.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=max_new,
                             do_sample=False, eos_token_id=end, pad_token_id=end,
                             output_scores=True, return_dict_in_generate=True,
                             repetition_penalty=None, top_k=None, top_p=None, temperature=None)
    new = out.sequences[0, len(prompt_ids):].tolist()
    margin = min(float((s[0].topk(2).values[0] - s[0].topk(2).values[1])) for s in out.scores)
    # No logits processors are active, so the scores are the raw logits.
    logprobs = [float(torch.log_softmax(s[0].double(), -1)[t]) for s, t in zip(out.scores, new)]
    return new, ("stop" if new and new[-1] == end else "length"), margin, logprobs


def build_references(model, tokenizer):
    system = "You are a research assistant. Search Wikipedia to answer the question."
    questions = [line for line in CORPUS if line.endswith("?")] + [
        f"Question number {n}: which city is older?" for n in range(200)]
    cases = []
    want = {"stop": 1, "length": 2}
    for q in questions:
        text = tokenizer.apply_chat_template(
            [{"role": "system", "content": system}, {"role": "user", "content": q}],
            tokenize=False, add_generation_prompt=True, enable_thinking=False)
        ids = tokenizer.encode(text, add_special_tokens=False)
        new, reason, margin, logprobs = greedy_reference(model, tokenizer, ids, 24)
        if margin < MIN_MARGIN or want.get(reason, 0) == 0:
            continue
        if reason == "stop" and len(new) < 3:
            continue  # a stop on the first token would not show much
        want[reason] -= 1
        cases.append({"name": f"greedy-{reason}-{len(cases)}", "prompt_text": text, "prompt_ids": ids,
                      "max_new_tokens": 24, "tokens": new, "logprobs": logprobs, "stop_reason": reason,
                      "min_margin": margin})
        if not any(want.values()):
            return cases
    raise SystemExit(f"could not find reference prompts for {want}; change SEED")


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    tokenizer = build_tokenizer(out_dir)
    model = build_model(tokenizer)
    exportable = ExportableQwen3(model).eval()
    check_against_hf(model, exportable)
    onnx_path = os.path.join(out_dir, "onnx", "model.onnx")
    export_onnx(exportable, onnx_path)
    check_onnx(exportable, onnx_path)
    model.generation_config.do_sample = False
    model.generation_config.eos_token_id = model.config.eos_token_id
    model.save_pretrained(out_dir)
    cases = build_references(model, tokenizer)
    import transformers
    reference = {"generator": f"torch {torch.__version__}, transformers {transformers.__version__}",
                 "end_token": "<|im_end|>", "end_token_id": model.config.eos_token_id,
                 "cases": cases}
    with open(os.path.join(out_dir, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
    print(f"tiny model: vocab {model.config.vocab_size}, "
          f"{sum(p.numel() for p in model.parameters())} parameters, "
          f"{len(cases)} reference decodes")


if __name__ == "__main__":
    main()
