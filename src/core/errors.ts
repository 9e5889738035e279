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
