/** One question row of train/val/test.jsonl, exactly the recipe's shape. */
export interface Question {
  id: string;
  question: string;
  answers: string[];
  type: string;
  level: string;
}

/** One paragraph row of corpus.jsonl. */
export interface Paragraph {
  id: number;
  title: string;
  text: string;
}

export type Split = "train" | "val" | "test";
