/**
 * What a run name may be, written once: it names a folder under runsDir and (for training) the
 * checkpoints registered from it, so it must be a plain file name of a sane length (a 300-character
 * name would otherwise fail deep in the file system as ENAMETOOLONG). The step specs' `--name`
 * flags and every core step that opens a run folder check against these, in the same words.
 */
import { quoteValue, UserError } from "../errors";

export const RUN_NAME_MAX_LENGTH = 100;

export const RUN_NAME_PATTERN = {
  regex: /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
  describe: 'letters, digits, ".", "_" or "-" (starting with a letter or digit)',
} as const;

/** Refuses a name that is not a plain, short folder name (the message `--name`'s flag check prints). */
export function checkRunName(name: string): void {
  if (!RUN_NAME_PATTERN.regex.test(name) || name.length > RUN_NAME_MAX_LENGTH) {
    throw new UserError(
      `--name must be ${RUN_NAME_PATTERN.describe}, at most ${RUN_NAME_MAX_LENGTH} characters, got ${quoteValue(name)}`,
    );
  }
}
