/** An error with the HTTP status the server should answer (4xx user errors; never 409, spec §7.2). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "HttpError";
  }
}
