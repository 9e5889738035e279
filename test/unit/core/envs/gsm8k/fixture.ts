/** GSM8K-shaped records written by tests, so a clone without ../shared/data still exercises the plumbing. */
import type { Gsm8kRecord } from "../../../../../src/core/envs/gsm8k";

/** The fixture twin: arithmetic word problems in GSM8K's shape (530 train, 40 test). */
export function fixtureRecords(n: number, offset: number): Gsm8kRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const a = 3 + ((i * 7 + offset) % 90);
    const b = 1000 + ((i * 13 + offset) % 5000);
    return { question: `Rosa has ${a} marbles and wins ${b} more (item ${offset + i}). How many marbles does she have now?`, answer: `She has ${a} + ${b} = <<${a}+${b}=${a + b}>>${a + b} marbles.\n#### ${a + b}` };
  });
}
