/** What the harness needs from a model's tokenizer and chat template. */

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatTokenizer {
  /** Identifies the tokenizer in a run's manifest (hub id or folder name + a hash of its files). */
  readonly name: string;
  /** Token ids of text with no special tokens added (special-token text like <|im_end|> maps to its id). */
  encode(text: string): number[];
  decode(ids: readonly number[], options?: { skipSpecialTokens?: boolean }): string;
  /**
   * The ids `skipSpecialTokens` leaves out, where decoding a sequence is the same as joining its
   * pieces' texts (a byte-level decoder, no clean-up of spaces); undefined where it is not. Lets a
   * view that has each token's text (views/trace/token-text.ts) take a slice's text from those
   * instead of decoding it again. Absent: decode.
   */
  piecewiseSpecialIds?(): ReadonlySet<number> | undefined;
  /** Id of a single token such as "<|im_end|>"; throws when the vocabulary lacks it. */
  tokenId(token: string): number;
  /**
   * The chat template rendered to text, generation prompt added when asked; thinking disabled
   * unless `thinking` (the template's `enable_thinking`).
   */
  renderChat(messages: ChatMessage[], options: { addGenerationPrompt: boolean; thinking?: boolean }): string;
}
