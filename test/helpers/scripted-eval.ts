/**
 * The real eval run with a ready (scripted) policy: what every test that makes a run this way
 * passes besides its own workspace, settings, name, split and replies. Greedy, not resumed, not
 * closed-book unless the test says so.
 */
import { evalSplit, type EvalSplitOptions } from "../../src/core/steps/eval/eval-split";

type Required = "workspaceDir" | "config" | "name" | "split" | "policy";

export function scriptedEval(o: Pick<EvalSplitOptions, Required> & Partial<EvalSplitOptions>) {
  return evalSplit({
    closedBook: false,
    resume: false,
    temperature: 0,
    backend: "scripted",
    command: ["test"],
    ...o,
  });
}
