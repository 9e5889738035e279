"""Drives the official Tinker Python SDK against Agent Lab's local backend.

Run by test/unit/server/python-sdk.test.ts with TINKER_BASE_URL pointing at a freshly started local
backend and any TINKER_API_KEY starting with "tml-". Exercises the flow a user's cookbook script
needs: training client -> forward_backward -> optim_step -> save_state ->
save_weights_and_get_sampling_client -> sample -> training client from state, plus REST listing.
Prints one line per step and "SDK FLOW OK" at the end; any failure raises.
"""

import math
import sys

import tinker
from tinker import types

BASE = "Qwen/Qwen3.5-4B"


def step(name: str) -> None:
    print(f"step: {name}", flush=True)


def datum(tokens: list[int], weights: list[float]) -> types.Datum:
    return types.Datum(
        model_input=types.ModelInput.from_ints(tokens[:-1]),
        loss_fn_inputs={"target_tokens": tokens[1:], "weights": weights[1:]},
    )


def main() -> None:
    service = tinker.ServiceClient()
    step("capabilities")
    caps = service.get_server_capabilities()
    assert any(m.model_name == BASE for m in caps.supported_models), caps

    step("create_lora_training_client")
    trainer = service.create_lora_training_client(base_model=BASE, rank=8, seed=1)
    info = trainer.get_info()
    assert info.model_id == trainer.model_id and info.lora_rank == 8, info

    tokens = [500, 501, 502, 503, 504, 505, 506]
    train = [datum(tokens, [0, 0, 1, 1, 1, 1, 1]), datum([500, 501, 502, 9, 504, 505, 506], [0, 0, 1, 1, 1, 1, 1])]
    step("forward_backward + optim_step")
    losses = []
    for _ in range(6):
        fb_future = trainer.forward_backward(train, "cross_entropy")
        opt_future = trainer.optim_step(types.AdamParams(learning_rate=0.05, eps=1e-8))
        fb = fb_future.result()
        opt_future.result()
        losses.append(fb.metrics["loss:sum"])
    print(f"cross-entropy loss:sum {losses[0]:.4f} -> {losses[-1]:.4f}")
    assert losses[-1] < losses[0] * 0.8, losses
    assert len(fb.loss_fn_outputs) == 2
    assert len(fb.loss_fn_outputs[0]["logprobs"].tolist()) == len(tokens) - 1

    step("save_state")
    state_path = trainer.save_state("sdk-state").result().path
    assert state_path == f"tinker://{trainer.model_id}/weights/sdk-state", state_path

    step("save_weights_and_get_sampling_client + sample")
    sampler = trainer.save_weights_and_get_sampling_client()
    prompt = types.ModelInput.from_ints([500, 501, 502])
    params = types.SamplingParams(max_tokens=5, seed=3, temperature=1.0, stop=[506])
    result = sampler.sample(prompt=prompt, num_samples=2, sampling_params=params).result()
    assert len(result.sequences) == 2
    for seq in result.sequences:
        assert len(seq.tokens) == len(seq.logprobs) and 1 <= len(seq.tokens) <= 5, seq
        assert seq.stop_reason in ("stop", "length")
        if seq.stop_reason == "stop":
            assert seq.tokens[-1] == 506, seq
        # The sampler's logprobs are the learner's logprobs for the same tokens (same weights).
        full = [500, 501, 502] + list(seq.tokens)
        fwd = trainer.forward([datum(full, [0.0] * len(full))], "cross_entropy").result()
        learner = fwd.loss_fn_outputs[0]["logprobs"].tolist()[2:]
        assert all(abs(a - b) < 1e-4 for a, b in zip(seq.logprobs, learner)), (seq.logprobs, learner)
    again = sampler.sample(prompt=prompt, num_samples=2, sampling_params=params).result()
    assert [s.tokens for s in again.sequences] == [s.tokens for s in result.sequences], "seeded sampling is not deterministic"

    step("compute_logprobs")
    scored = sampler.compute_logprobs(types.ModelInput.from_ints(tokens)).result()
    assert scored[0] is None and all(x is not None and x < 0 for x in scored[1:]), scored

    step("importance_sampling forward_backward")
    seq = result.sequences[0]
    full = [500, 501, 502] + list(seq.tokens)
    n = len(full) - 1
    lp = [0.0, 0.0] + list(seq.logprobs)
    adv = [0.0, 0.0] + [1.0] * len(seq.tokens)
    rl = types.Datum(
        model_input=types.ModelInput.from_ints(full[:-1]),
        loss_fn_inputs={"target_tokens": full[1:], "logprobs": lp[:n], "advantages": adv[:n]},
    )
    is_out = trainer.forward_backward([rl], "importance_sampling").result()
    assert math.isfinite(is_out.metrics["loss:sum"])
    # On-policy ratio is 1, so the loss is minus the number of action tokens.
    assert abs(is_out.metrics["loss:sum"] + len(seq.tokens)) < 1e-3, is_out.metrics

    step("named sampler checkpoint + create_sampling_client(model_path)")
    sampler_path = trainer.save_weights_for_sampler("sdk-sampler").result().path
    assert sampler_path.endswith("/sampler_weights/sdk-sampler"), sampler_path
    path_sampler = service.create_sampling_client(model_path=sampler_path)
    out = path_sampler.sample(prompt=prompt, num_samples=1, sampling_params=params).result()
    assert len(out.sequences) == 1
    base_sampler = service.create_sampling_client(base_model=BASE)
    assert base_sampler.get_base_model() == BASE

    step("create_training_client_from_state")
    restored = service.create_training_client_from_state(state_path)
    a = trainer.forward(train, "cross_entropy").result().loss_fn_outputs[0]["logprobs"].tolist()
    b = restored.forward(train, "cross_entropy").result().loss_fn_outputs[0]["logprobs"].tolist()
    # trainer took one importance-sampling forward_backward without an optim_step since the save,
    # so the weights are still those saved.
    assert all(abs(x - y) < 1e-5 for x, y in zip(a, b)), (a, b)
    with_opt = service.create_training_client_from_state_with_optimizer(state_path)
    with_opt.forward_backward(train, "cross_entropy").result()
    with_opt.optim_step(types.AdamParams(learning_rate=0.01)).result()

    step("REST listing")
    rest = service.create_rest_client()
    runs = rest.list_training_runs().result()
    ids = [r.training_run_id for r in runs.training_runs]
    assert trainer.model_id in ids, ids
    run = rest.get_training_run(trainer.model_id).result()
    assert run.base_model == BASE and run.is_lora
    ckpts = rest.list_checkpoints(trainer.model_id).result().checkpoints
    kinds = sorted(c.checkpoint_id for c in ckpts)
    assert kinds == ["sampler_weights/sdk-sampler", "weights/sdk-state"], kinds
    weights_info = rest.get_weights_info_by_tinker_path(state_path).result()
    assert weights_info.lora_rank == 8, weights_info
    user = rest.list_user_checkpoints().result().checkpoints
    assert any(c.tinker_path == state_path for c in user)
    rest.delete_checkpoint_from_tinker_path(sampler_path).result()
    after = [c.checkpoint_id for c in rest.list_checkpoints(trainer.model_id).result().checkpoints]
    assert after == ["weights/sdk-state"], after

    print(f"tinker SDK {tinker.__version__}: SDK FLOW OK", flush=True)


if __name__ == "__main__":
    main()
    sys.exit(0)
