/**
 * What the playground accepts from its user before anything is sampled: a question, and each
 * turn's temperature and token limit, in the ranges the eval flags declare (one contract: the
 * flags' specs). Every refusal is one line naming the field and what to do.
 */
import { UserError } from "../../base/errors";
import type { TurnSettings } from "../../harness/interactive";
import { maxTokens as MAX_TOKENS_FLAG, temperature as temperatureFlag } from "../specs/common-flags";

const TEMPERATURE = temperatureFlag(0);

export interface TurnSettingsInput {
  temperature: unknown;
  maxTokens: unknown;
}

/** A turn's settings, checked; a value out of range is refused naming its range. */
export function checkTurnSettings(input: TurnSettingsInput): TurnSettings {
  const t = input.temperature;
  if (typeof t !== "number" || !Number.isFinite(t) || t < TEMPERATURE.min || t > TEMPERATURE.max)
    throw new UserError(
      `temperature ${String(t)} is out of range: use a number from ${TEMPERATURE.min} to ${TEMPERATURE.max}`,
    );
  const n = input.maxTokens;
  if (typeof n !== "number" || !Number.isInteger(n) || n < MAX_TOKENS_FLAG.min || n > MAX_TOKENS_FLAG.max)
    throw new UserError(
      `max tokens ${String(n)} is out of range: use a whole number from ${MAX_TOKENS_FLAG.min} to ${MAX_TOKENS_FLAG.max}`,
    );
  return { temperature: t, maxTokens: n };
}

/** A typed question, trimmed; an empty one is refused. */
export function checkTypedQuestion(text: unknown): string {
  const q = typeof text === "string" ? text.trim() : "";
  if (q === "") throw new UserError("the question is empty: type one, or pick one from a split");
  return q;
}
