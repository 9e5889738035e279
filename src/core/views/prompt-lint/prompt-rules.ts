/**
 * The recipe's known traps in a system prompt, found without a tokenizer or a model.
 *
 * The lesson behind them (recipe, step 2.3): the first prompt described the actions with
 * placeholders, `<search>keywords</search>`; the small model searched for the word "keywords" and
 * answered "final answer" on every question (F1 = 0). One concrete worked example fixed it.
 *
 * Contents of an action tag are classified as
 * - placeholder: a generic word a model can copy as if it were a real query or answer
 *   ("keywords", "query", "final answer", "..."), an ALL-CAPS slot (QUERY, YOUR_QUERY) or a
 *   bracketed slot ({query}, <query>, [answer]) → warning;
 * - described slot: "your query", "your answer" — addressed to the model, so not copied as readily;
 *   not flagged on its own, and never counts as an example (the shipped default prompt avoids even
 *   these: it names the tags empty, as the recipe does, and shows one worked example);
 * - empty (`<answer></answer>`: the recipe's own way to name a tag) or concrete.
 */
import type { LintIssue } from "./issues";

/** The tags the harness parses in a model reply (src/core/harness/actions.ts). */
export const ACTION_TAGS = ["search", "answer"] as const;
/** Tags the harness itself writes into the conversation; a prompt may describe them. */
export const HARNESS_TAGS = ["result"] as const;

export interface PromptLintOptions {
  /** A closed-book prompt: no search tag is expected, and no search example. */
  closedBook?: boolean;
}

export type TagContentKind = "empty" | "placeholder" | "slot" | "concrete";

/** Generic words small models copy verbatim (compared lower-case, articles dropped). */
const PLACEHOLDER_WORDS = new Set([
  "keyword",
  "keywords",
  "query",
  "queries",
  "search query",
  "search terms",
  "search term",
  "terms",
  "term",
  "search",
  "text",
  "question",
  "answer",
  "final answer",
  "short answer",
  "answer here",
  "query here",
  "your query here",
  "your answer here",
  "response",
  "result",
  "value",
  "string",
  "entity",
  "name",
  "x",
  "xxx",
  "foo",
  "bar",
  "tbd",
  "todo",
  "placeholder",
  "something",
  "insert query",
  "insert answer",
]);
/** Words that make an ALL-CAPS run a slot rather than an acronym such as USA or NASA. */
const SLOT_WORDS = /QUERY|QUERIES|ANSWER|KEYWORD|TERM|TEXT|QUESTION|HERE|YOUR|PLACEHOLDER|INSERT|XXX/;

export function classifyTagContent(raw: string): TagContentKind {
  const text = raw.trim();
  if (!text) return "empty";
  if (/^(\.{2,}|…+)$/.test(text)) return "placeholder";
  if (/^\{+[^{}]+\}+$|^<[^<>]+>$|^\[[^[\]]+\]$|^\$\{[^}]+\}$/.test(text)) return "placeholder";
  if (/[A-Z]/.test(text) && text === text.toUpperCase() && (text.includes("_") || SLOT_WORDS.test(text)))
    return "placeholder";
  const words = text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/^(the|a|an|some|your own) /, "");
  if (PLACEHOLDER_WORDS.has(words)) return "placeholder";
  if (/^(your|my|the model's) /i.test(text)) return "slot";
  return "concrete";
}

interface TagPair {
  tag: string;
  content: string;
  /** Offset of "<tag>". */
  start: number;
  /** Offset just past "</tag>". */
  end: number;
  contentStart: number;
}

/** Every complete `<search>…</search>` / `<answer>…</answer>` pair, in order. */
export function actionPairs(text: string): TagPair[] {
  const pairs: TagPair[] = [];
  const re = /<(search|answer)>([\s\S]*?)<\/\1>/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const contentStart = m.index + m[1].length + 2;
    pairs.push({ tag: m[1], content: m[2], start: m.index, end: m.index + m[0].length, contentStart });
  }
  return pairs;
}

export function lintPrompt(text: string, options: PromptLintOptions = {}): LintIssue[] {
  const issues: LintIssue[] = [];
  const pairs = actionPairs(text);

  for (const p of pairs) {
    if (classifyTagContent(p.content) !== "placeholder") continue;
    const shown = p.content.trim();
    issues.push({
      code: "placeholder-in-tag",
      severity: "warning",
      message:
        `Placeholder "${shown}" inside <${p.tag}>: small models copy it verbatim (the recipe's model searched for "keywords" ` +
        `and answered "final answer" on every question). Describe the action in words outside the tags, or use a real ` +
        `${p.tag === "search" ? "query" : "answer"} from a worked example.`,
      start: p.contentStart,
      end: p.contentStart + p.content.length,
    });
  }

  const wanted = options.closedBook ? (["answer"] as const) : ACTION_TAGS;
  const firstLineEnd = text.indexOf("\n") < 0 ? text.length : text.indexOf("\n");
  for (const tag of wanted) {
    if (text.includes(`<${tag}>`)) continue;
    issues.push({
      code: "missing-action-tag",
      severity: tag === "answer" ? "error" : "warning",
      message:
        tag === "answer"
          ? "The prompt never mentions <answer>…</answer>: the harness ends an episode only on an <answer> tag, so the model cannot answer."
          : "The prompt never mentions <search>…</search>: the harness searches only on a <search> tag, so the model cannot research. (A closed-book prompt belongs in a file named *closed-book*.)",
      start: 0,
      end: firstLineEnd,
    });
  }

  if (!options.closedBook && !hasConcreteExample(pairs)) {
    issues.push({
      code: "no-concrete-example",
      severity: "warning",
      message:
        "No concrete worked example: add one question with real replies, e.g. <search>a real query</search> … then " +
        "<answer>the real answer</answer> with actual names. In the recipe, one concrete example is what stopped the " +
        "model from copying placeholders.",
      start: 0,
      end: firstLineEnd,
    });
  }

  // Tags the harness never parses: a model that uses them writes a reply with no action.
  const insidePairs = (offset: number) =>
    pairs.some((p) => offset >= p.contentStart && offset < p.end - p.tag.length - 3);
  const known = new Set<string>([...ACTION_TAGS, ...HARNESS_TAGS]);
  const tagRe = /<(\/?)([A-Za-z][\w-]*)\s*\/?>/g;
  const reported = new Set<string>();
  for (let m = tagRe.exec(text); m; m = tagRe.exec(text)) {
    const name = m[2];
    if (known.has(name)) continue;
    if (insidePairs(m.index)) continue; // `<search><query></search>` is reported as a placeholder
    if (m[1] && reported.has(name)) continue; // `<tool>…</tool>`: one report, on the opening tag
    reported.add(name);
    issues.push({
      code: "unknown-tag",
      severity: "warning",
      message:
        `<${name}> is not a tag the harness parses: it reads only <search>…</search> and <answer>…</answer> from a reply, ` +
        `so a model that writes <${name}> gets no action. ` +
        (ACTION_TAGS.some((t) => t.toLowerCase() === name.toLowerCase())
          ? "Tags are case-sensitive."
          : `Use <search> or <answer> instead.`),
      start: m.index,
      end: m.index + m[0].length,
    });
  }

  return issues.sort((a, b) => a.start - b.start);
}

/** A complete search with a concrete query, followed (later in the text) by a concrete answer. */
export function hasConcreteExample(pairs: readonly TagPair[]): boolean {
  const firstSearch = pairs.find((p) => p.tag === "search" && classifyTagContent(p.content) === "concrete");
  if (!firstSearch) return false;
  return pairs.some(
    (p) => p.tag === "answer" && p.start > firstSearch.end && classifyTagContent(p.content) === "concrete",
  );
}

/** Closed-book prompts are recognised by file name (the shipped one is data/prompts/closed-book.md). */
export function isClosedBookPromptFile(file: string): boolean {
  return /closed[-_ ]?book/i.test(file.split(/[\\/]/).pop() ?? "");
}
