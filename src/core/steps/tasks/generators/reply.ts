/**
 * A generator model's reply → a candidate: the problem after "Problem:" and the first fenced
 * Python block that defines `solution()`. The generation prompt (data/prompts/gen-tasks.md) asks
 * for exactly this shape; anything else is counted as unparsed, never guessed at.
 */
import type { CandidateDraft } from "./generator";

const FENCE = /```(?:python|py)?[ \t]*\n([\s\S]*?)```/i;

export function parseGeneratorReply(reply: string): CandidateDraft | { error: string } {
  const text = reply.replace(/<think>[\s\S]*?<\/think>/g, "");
  const code = FENCE.exec(text);
  if (!code) return { error: "no fenced Python block" };
  const solution = code[1].trim();
  if (!/^\s*def solution\(\s*\)\s*(->[^:]*)?:/m.test(solution)) return { error: "the code defines no solution()" };
  const before = text.slice(0, code.index);
  const m = /problem\s*:\s*([\s\S]+)/i.exec(before);
  const problem = (m ? m[1] : before)
    .replace(/\*\*/g, "")
    .replace(/\s+/g, " ")
    .replace(/\s*(solution|code)\s*:?\s*$/i, "")
    .trim();
  if (problem.length < 20) return { error: "no problem text before the code" };
  return { problem, solution };
}
