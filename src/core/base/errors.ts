/** An error caused by the user's input or environment: printed as a one-line message, no stack. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserError";
  }
}

/** Bad content in a file: the message always names the file and, where known, the line. */
export class FileFormatError extends UserError {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    problem: string,
  ) {
    super(`${file}${line !== undefined ? `:${line}` : ""}: ${problem}`);
    this.name = "FileFormatError";
  }
}

/** Longest text quoted back in a message: longer input (a 300-character name) is shown cut, with its length. */
const MAX_QUOTED = 60;

/** A value as a message quotes it: JSON-quoted, cut when long. */
export function quoteValue(raw: string): string {
  return raw.length > MAX_QUOTED
    ? `${JSON.stringify(raw.slice(0, MAX_QUOTED) + "…")} (${raw.length} characters)`
    : JSON.stringify(raw);
}
