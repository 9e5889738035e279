/** A request the model cannot serve because of what the caller sent (the server answers 400). */
export class UserInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserInputError";
  }
}
