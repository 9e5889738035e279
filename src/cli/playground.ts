/**
 * `agent-lab playground [--env E] [--backend local|tinker|…] [--model-path P] [--prompt FILE]`:
 * the Chat with Model panel's process. It holds the model (and the API key, from its environment)
 * and the environment, and answers one JSON request per stdin line with one prefixed reply line
 * (src/core/views/playground/protocol.ts). A turn runs while further lines are read, so a cancel
 * reaches the turn in flight. stdin closing ends the process.
 */
import { createInterface } from "node:readline";
import { UserError } from "../core/base/errors";
import { PLAYGROUND_STEP } from "../core/steps/catalog/catalog";
import { Playground, PLAYGROUND_SPLITS, type PlaygroundEpisode } from "../core/steps/playground/playground";
import { buildTraceView } from "../core/views/trace/trace-view";
import {
  replyLine,
  type PlaygroundEpisodeState,
  type PlaygroundReply,
  type PlaygroundRequest,
} from "../core/views/playground/protocol";
import { localBackendFor } from "./local-backend";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(PLAYGROUND_STEP, argv);
  if (!args) return;
  const { values, config, workspaceDir } = args;
  const local = values.backend === "local" ? await localBackendFor(workspaceDir, values["local-port"]) : undefined;
  try {
    const playground = await Playground.open({
      workspaceDir,
      config,
      env: values.env,
      promptFile: values.prompt,
      backend: values.backend,
      checkpoint: values["model-path"],
      model: values.model,
      tokenizer: values.tokenizer,
      localBackendUrl: local?.url,
    });
    try {
      await serve(playground);
    } finally {
      playground.close();
    }
  } finally {
    await local?.close();
  }
}

const send = (reply: PlaygroundReply) => process.stdout.write(replyLine(reply) + "\n");

async function serve(playground: Playground): Promise<void> {
  let episode: PlaygroundEpisode | undefined;
  let lastMaxTokens = playground.defaults.maxTokens;
  const state = (ep: PlaygroundEpisode): PlaygroundEpisodeState => ({
    view: buildTraceView(ep.viewRecord(), playground.policy.tokenizer, {
      environment: playground.env,
      drift: false,
    }),
    scored: ep.scored,
    done: ep.done,
    turns: ep.turnCosts.map((t) => ({ prefill: t.prefill, generated: t.generated, usd: t.usd })),
    nextTurnMaxUsd: ep.estimateNextUsd(lastMaxTokens),
  });
  send({
    type: "ready",
    environment: playground.env.name,
    policy: playground.model,
    systemPrompt: playground.prompt.text,
    tools: [...playground.tools],
    splits: [...PLAYGROUND_SPLITS],
    priced: playground.prices !== null,
    defaults: playground.defaults,
  });

  const handle = async (request: PlaygroundRequest): Promise<void> => {
    switch (request.op) {
      case "items":
        send({
          type: "items",
          split: request.split,
          items: playground.items(request.split).map((i) => ({ id: i.id, question: i.question })),
        });
        return;
      case "start": {
        const next = playground.start(request.question);
        episode?.close();
        episode = next;
        send({ type: "episode", episode: state(next) });
        return;
      }
      case "turn": {
        const ep = current(episode);
        let turn;
        try {
          turn = await ep.next({ temperature: request.temperature, maxTokens: request.maxTokens });
        } catch (e) {
          // An episode replaced by a new question while its turn ran ends quietly: nobody shows it.
          if (ep !== episode) return;
          throw e;
        }
        if (typeof request.maxTokens === "number") lastMaxTokens = request.maxTokens;
        // A reply for the episode still shown (a new one may have been started meanwhile).
        if (ep === episode) send({ type: turn.kind === "cancelled" ? "cancelled" : "episode", episode: state(ep) });
        return;
      }
      case "cancel":
        episode?.cancel();
        return;
      case "save": {
        const runDir = await current(episode).save(request.name);
        send({ type: "saved", name: request.name, runDir });
        return;
      }
      case "close":
        process.stdin.pause();
        return;
      default:
        throw new UserError(`unknown request ${JSON.stringify((request as { op?: unknown }).op)}`);
    }
  };

  const lines = createInterface({ input: process.stdin });
  const pending = new Set<Promise<void>>();
  for await (const line of lines) {
    if (line.trim() === "") continue;
    let request: PlaygroundRequest;
    try {
      request = JSON.parse(line) as PlaygroundRequest;
    } catch {
      send({ type: "error", op: "", message: "a request line is not JSON" });
      continue;
    }
    if (request.op === "close") break;
    const p = handle(request).catch((e: unknown) => {
      // Every refusal is the panel's one line; anything else is a bug, shown the same way rather than ending the chat.
      send({ type: "error", op: request.op, message: e instanceof Error ? e.message : String(e) });
    });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }
  episode?.cancel();
  await Promise.all(pending);
}

function current(episode: PlaygroundEpisode | undefined): PlaygroundEpisode {
  if (!episode) throw new UserError("no question yet: type one, or pick one from a split");
  return episode;
}
