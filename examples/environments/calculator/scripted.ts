/**
 * The calculator's scripted reader, what `--backend scripted` samples from in this environment: it
 * calls the calculator with the question's two numbers, then answers with what came back. Offline
 * and free, so eval, sft-data and the steps after them run without a model.
 */
import type { ScriptedReader } from "../../../src/core/harness/policies/scripted";
import { ScriptedPolicy } from "../../../src/core/harness/policies/scripted";

export const SCRIPTED_READER: ScriptedReader = (tokenizer) =>
  new ScriptedPolicy(
    tokenizer,
    (ctx) => {
      const result = /^\n= (\d+)<\|im_end\|>/.exec(ctx.promptText.split("<|im_start|>user").at(-1)!);
      if (result) return `<final>${result[1]}</final>`;
      const sum = /What is (\d+) \+ (\d+)\?/.exec(ctx.promptText);
      return sum ? `<calc>${sum[1]}+${sum[2]}</calc>` : "<final>?</final>";
    },
    { model: "calculator-reader" },
  );
