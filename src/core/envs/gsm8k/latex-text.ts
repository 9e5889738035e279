/**
 * LaTeX to plain text, the way the cookbook's grader sees it: its `_parse_latex` runs pylatexenc's
 * `LatexNodes2Text().latex_to_text` (pylatexenc 2.x, default options) on any answer with a
 * backslash. This is a subset of that converter, enough for the answers a model writes for a
 * number: braces drop, text-style macros keep their argument (`\text`, `\textbf`, `\mathrm`,
 * `\mathbf`, `\emph`…), `\frac{a}{b}` → `a/b`, `\sqrt{x}` → `√(x)`, spacing macros become spaces,
 * `\\` a newline, `\(…\)` / `\[…\]` their content, common symbols their Unicode character, and
 * macros pylatexenc does not know are dropped (their braced argument then reads as a plain group).
 * Macros whose argument pylatexenc parses but does not print (`\mbox`, `\texttt`, `\label`,
 * `\ensuremath`, `\hphantom`…) drop with their argument, as there. Its parser's quirks are kept
 * too, since they decide what a broken answer reads as: a macro taken as another's one-token
 * argument gets no arguments of its own; an argument missing at the end of the input leaves the
 * macro with none (then `\frac` prints "%s/%s", and `\sqrt` makes the converter raise, which the
 * grader ignores, keeping its input); a blank line ends an argument search; spaces after a macro
 * name are swallowed (up to one newline); inside math a space-only run drops.
 *
 * Known differences (none changes a verdict on a number; a test replays 1,200 random LaTeX strings
 * through pylatexenc's and this converter): symbol macros outside the table below (pylatexenc knows
 * several hundred) are dropped here instead of printed as a character; letter styles other than
 * `\mathbf` (`\mathit`, `\mathbb`…) keep plain letters; environments other than the equation family
 * print their content.
 */
import { pyStrip } from "./python-number";

type Node =
  | { kind: "chars"; text: string }
  | { kind: "group"; nodes: Node[] }
  // `failed`: pylatexenc gave the macro no arguments at all (one ran past the end of the input, or
  // the macro is itself a one-token argument)
  | { kind: "macro"; name: string; args: (Node[] | undefined)[]; postSpace: string; failed?: boolean }
  | { kind: "math"; display: boolean; nodes: Node[] }
  | { kind: "specials"; text: string };

/** Argument shapes pylatexenc's parser gives known macros: `{` mandatory, `[` optional, `*` star. */
const ARGS: Record<string, string> = {
  hspace: "*{",
  vspace: "*{",
  mbox: "{",
  "\\": "*[",
  frac: "{{",
  nicefrac: "{{",
  sqrt: "[{",
  emph: "{",
  textrm: "{",
  textit: "{",
  textbf: "{",
  textmd: "{",
  textsc: "{",
  textsf: "{",
  textsl: "{",
  texttt: "{",
  textup: "{",
  text: "{",
  mathrm: "{",
  mathbb: "{",
  mathbf: "{",
  mathit: "{",
  mathsf: "{",
  mathtt: "{",
  mathcal: "{",
  mathscr: "{",
  mathfrak: "{",
  label: "{",
  ref: "{",
  autoref: "{",
  cref: "{",
  Cref: "{",
  eqref: "{",
  url: "{",
  hypersetup: "{",
  footnote: "[{",
  hphantom: "[{",
  vphantom: "[{",
  ensuremath: "{",
  not: "{",
  overline: "{",
  underline: "{",
  widehat: "{",
  widetilde: "{",
  overbrace: "{",
  underbrace: "{",
  xleftarrow: "[{",
  xrightarrow: "[{",
  color: "[{",
  textcolor: "[{{",
  colorbox: "[{{",
  fcolorbox: "[{[{{",
  texorpdfstring: "{{",
};

/** Accent macros: their argument followed by this combining mark. */
const ACCENTS: Record<string, string> = {
  "'": "\u0301",
  "`": "\u0300",
  '"': "\u0308",
  "^": "\u0302",
  "~": "\u0303",
  "=": "\u0304",
  ".": "\u0307",
  c: "\u0327",
  H: "\u030b",
  k: "\u0328",
  b: "\u0331",
  d: "\u0323",
  r: "\u030a",
  u: "\u0306",
  v: "\u030c",
  vec: "\u20d7",
  dot: "\u0307",
  hat: "\u0302",
  check: "\u030c",
  breve: "\u0306",
  acute: "\u0301",
  grave: "\u0300",
  tilde: "\u0303",
  bar: "\u0305",
  ddot: "\u0308",
  not: "\u0338",
};
for (const name of Object.keys(ACCENTS)) ARGS[name] ??= "{";

/** Macros printed as a fixed text. */
const SYMBOLS: Record<string, string> = {
  ",": " ",
  ";": " ",
  ":": " ",
  " ": " ",
  "!": "",
  quad: "  ",
  qquad: "    ",
  $: "$",
  "{": "{",
  "}": "}",
  "%": "%",
  "#": "#",
  _: "_",
  "&": "&",
  "~": "~",
  textdollar: "$",
  texteuro: "€",
  textdegree: "°",
  textcent: "¢",
  textsterling: "£",
  textyen: "¥",
  textpm: "±",
  textmp: "∓",
  pm: "±",
  mp: "∓",
  cdot: "·",
  times: "×",
  div: "÷",
  ast: "∗",
  star: "⋆",
  circ: "∘",
  bullet: "∙",
  approx: "≈",
  sim: "∼",
  simeq: "≃",
  neq: "≠",
  ne: "≠",
  equiv: "≡",
  propto: "∝",
  le: "≤",
  ge: "≥",
  leq: "≤",
  geq: "≥",
  ll: "≪",
  gg: "≫",
  infty: "∞",
  prime: "'",
  dagger: "†",
  dag: "†",
  ldots: "…",
  cdots: "⋯",
  dots: "…",
  vdots: "⋮",
  ddots: "⋱",
  to: "→",
  rightarrow: "→",
  leftarrow: "←",
  Rightarrow: "⇒",
  Leftarrow: "⇐",
  in: "∈",
  notin: "∉",
  sum: "∑",
  prod: "∏",
  int: "∫",
  partial: "∂",
  nabla: "∇",
  forall: "∀",
  exists: "∃",
  emptyset: "∅",
  cup: "∪",
  cap: "∩",
  setminus: "∖",
  vert: "|",
  mid: "|",
  lvert: "|",
  rvert: "|",
  langle: "⟨",
  rangle: "⟩",
  backslash: "\\",
  textbackslash: "\\",
  sin: "sin",
  cos: "cos",
  tan: "tan",
  log: "log",
  ln: "ln",
  exp: "exp",
  max: "max",
  min: "min",
  lim: "lim",
  sup: "sup",
  inf: "inf",
  textendash: "–",
  textemdash: "—",
  alpha: "α",
  beta: "β",
  gamma: "γ",
  delta: "δ",
  epsilon: "ϵ",
  varepsilon: "ε",
  zeta: "ζ",
  eta: "η",
  theta: "θ",
  iota: "ι",
  kappa: "κ",
  lambda: "λ",
  mu: "μ",
  nu: "ν",
  xi: "ξ",
  pi: "π",
  rho: "ρ",
  sigma: "σ",
  tau: "τ",
  upsilon: "υ",
  phi: "ϕ",
  varphi: "φ",
  chi: "χ",
  psi: "ψ",
  omega: "ω",
  Gamma: "Γ",
  Delta: "Δ",
  Theta: "Θ",
  Lambda: "Λ",
  Xi: "Ξ",
  Pi: "Π",
  Sigma: "Σ",
  Phi: "Φ",
  Psi: "Ψ",
  Omega: "Ω",
  hspace: "",
  vspace: "\n",
  "\\": "\n",
};

/** Macros printing their arguments as they are. */
const PASS = new Set([
  "text",
  "textrm",
  "textit",
  "textbf",
  "textsc",
  "textsl",
  "emph",
  "mathrm",
  "mathbf",
  "mathit",
  "mathsf",
  "mathbb",
  "mathtt",
  "mathcal",
  "mathscr",
  "mathfrak",
  "overline",
  "underline",
  "widehat",
  "widetilde",
  "overbrace",
  "underbrace",
]);

/** Templated macros left without arguments print their template. */
const TEMPLATE_UNFILLED: Record<string, string> = {
  frac: "%s/%s",
  nicefrac: "%s/%s",
  overline: "%s",
  underline: "%s",
  widehat: "%s",
  widetilde: "%s",
  overbrace: "%s",
  underbrace: "%s",
  url: "<%s>",
};

const SPECIALS = ["---", "--", "``", "''", "!`", "?`", "&", "~"];
const SPECIAL_TEXT: Record<string, string> = {
  "---": "—",
  "--": "–",
  "``": "“",
  "''": "”",
  "!`": "¡",
  "?`": "¿",
  "&": "   ",
  "~": "\u00a0",
};
const EQUATION_ENVS = new Set([
  "equation",
  "equation*",
  "eqnarray",
  "eqnarray*",
  "align",
  "align*",
  "multline",
  "multline*",
  "gather",
  "gather*",
]);

/** The spaces a macro name swallows: up to one newline, none of a blank line. */
function macroPostSpace(rest: string): string {
  const space = /^[ \t\r]*(?:\n[ \t\r]*)?/.exec(rest)![0];
  return space.includes("\n") && rest[space.length] === "\n" ? space.slice(0, space.indexOf("\n")) : space;
}

const PAST_END = Symbol("past the end");
const END_OF_ARGS = Symbol("end of arguments");

/** pylatexenc raises (a KeyError) rendering some macros left without arguments; the grader then keeps its input. */
export class LatexTextError extends Error {}

/**
 * How deep groups may nest before the parser gives up (raising, as pylatexenc does when Python's
 * recursion limit stops it): parsing and rendering recurse once per level, and a reply nesting
 * `\boxed{` 4,000 deep would otherwise overflow the stack. No answer written for a number comes near.
 */
export const MAX_LATEX_NESTING = 100;

/** The deepest nesting of `{` `(` `[` in `text` (an unmatched closer counts as nothing). */
export function bracketNesting(text: string): number {
  let depth = 0;
  let max = 0;
  for (const ch of text) {
    if (ch === "{" || ch === "(" || ch === "[") max = Math.max(max, ++depth);
    else if ((ch === "}" || ch === ")" || ch === "]") && depth > 0) depth--;
  }
  return max;
}

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(private readonly s: string) {}

  /** Nodes until the end, or until `close` ("}", "\\)", "\\]", "\\end{name}") which is consumed. */
  nodes(close?: string): Node[] {
    if (++this.depth > MAX_LATEX_NESTING) throw new LatexTextError(`groups nested over ${MAX_LATEX_NESTING} deep`);
    try {
      return this.nodesAtThisDepth(close);
    } finally {
      this.depth--;
    }
  }

  private nodesAtThisDepth(close?: string): Node[] {
    const out: Node[] = [];
    let chars = "";
    const flush = () => {
      if (chars) out.push({ kind: "chars", text: chars });
      chars = "";
    };
    while (this.pos < this.s.length) {
      if (close && this.s.startsWith(close, this.pos)) {
        this.pos += close.length;
        break;
      }
      const ch = this.s[this.pos];
      if (ch === "{") {
        flush();
        this.pos++;
        out.push({ kind: "group", nodes: this.nodes("}") });
      } else if (ch === "}") {
        this.pos++; // a stray closing brace: the tolerant parser drops it
      } else if (ch === "\\") {
        flush();
        out.push(...this.backslash());
      } else {
        const special = SPECIALS.find((sp) => this.s.startsWith(sp, this.pos));
        if (special) {
          flush();
          this.pos += special.length;
          out.push({ kind: "specials", text: special });
        } else {
          chars += ch;
          this.pos++;
        }
      }
    }
    flush();
    return out;
  }

  private backslash(): Node[] {
    const rest = this.s.slice(this.pos + 1);
    const letters = /^[a-zA-Z]+/.exec(rest);
    const name = letters ? letters[0] : rest.slice(0, 1);
    this.pos += 1 + name.length;
    if (name === "(" || name === "[")
      return [{ kind: "math", display: name === "[", nodes: this.nodes(name === "(" ? "\\)" : "\\]") }];
    if (name === ")" || name === "]") return [];
    let postSpace = "";
    if (letters) {
      postSpace = macroPostSpace(this.s.slice(this.pos));
      this.pos += postSpace.length;
    }
    if (name === "begin" || name === "end") return this.environment(name);
    const spec = ARGS[name] ?? "";
    const afterName = this.pos;
    const args: (Node[] | undefined)[] = [];
    for (const kind of spec) {
      const arg = this.arg(kind, name === "\\");
      if (arg === END_OF_ARGS) break;
      if (arg === PAST_END) {
        // what follows is read again as ordinary text
        this.pos = afterName;
        return [{ kind: "macro", name, args: [], postSpace, failed: true }];
      }
      args.push(arg);
    }
    return [{ kind: "macro", name, args, postSpace }];
  }

  private environment(which: string): Node[] {
    const env = /^\{([^{}]*)\}/.exec(this.s.slice(this.pos));
    if (!env) return [{ kind: "chars", text: `\\${which}` }]; // malformed: the tolerant parser keeps it as text
    this.pos += env[0].length;
    if (which === "end") return [];
    const nodes = this.nodes(`\\end{${env[1]}}`);
    return EQUATION_ENVS.has(env[1]) ? [{ kind: "math", display: true, nodes }] : [{ kind: "group", nodes }];
  }

  private skipSpace(): void {
    while (this.pos < this.s.length && /\s/.test(this.s[this.pos])) this.pos++;
  }

  /** One argument; undefined when absent (optional, or a mandatory one met by "}"), PAST_END at the end of input. */
  private arg(kind: string, noSpaceBeforeOptional: boolean): Node[] | undefined | typeof PAST_END | typeof END_OF_ARGS {
    const start = this.pos;
    if (kind === "*") {
      this.skipSpace();
      if (this.s[this.pos] === "*") {
        this.pos++;
        return [{ kind: "chars", text: "*" }];
      }
      this.pos = start;
      return undefined;
    }
    if (kind === "[") {
      if (!noSpaceBeforeOptional) this.skipSpace();
      if (this.s[this.pos] !== "[") {
        this.pos = start;
        return undefined;
      }
      // parsed as nodes up to a "]" at this level (a nested \\[2mm] keeps its own); an unclosed "[" takes the rest
      this.pos++;
      return this.nodes("]");
    }
    this.skipSpace();
    if (/\n[^\S\n]*\n/.test(this.s.slice(start, this.pos))) {
      this.pos = start; // a blank line ends the search for an argument
      return undefined;
    }
    const c = this.s[this.pos];
    if (c === undefined) return PAST_END;
    if (c === "}") return undefined;
    if (c === "{") {
      this.pos++;
      return this.nodes("}");
    }
    if (c === "\\") {
      if (this.pos + 1 >= this.s.length) return PAST_END; // a lone trailing backslash is no token
      const rest = this.s.slice(this.pos + 1);
      const letters = /^[a-zA-Z]+/.exec(rest);
      const name = letters ? letters[0] : rest.slice(0, 1);
      this.pos += 1 + name.length;
      const postSpace = letters ? macroPostSpace(this.s.slice(this.pos)) : "";
      this.pos += postSpace.length;
      if (name === "end") {
        this.environment("end"); // pylatexenc prints nothing for an \end{…} taken as an argument…
        return END_OF_ARGS; // …and reads no further arguments
      }
      // a macro read as another's argument is a single token: it gets no arguments of its own
      return [{ kind: "macro", name, args: [], postSpace, failed: true }];
    }
    const special = SPECIALS.find((sp) => this.s.startsWith(sp, this.pos));
    if (special) {
      this.pos += special.length;
      return [{ kind: "specials", text: special }];
    }
    this.pos += c.length;
    return [{ kind: "chars", text: c }];
  }
}

/** pylatexenc's spacing rules: in text mode every space is kept; inside math a space-only run drops. */
function render(nodes: Node[], math: boolean): string {
  let s = "";
  let prev: Node | undefined;
  for (const node of nodes) {
    if (math && prev?.kind === "macro" && prev.args.length === 0 && node.kind === "chars") s += prev.postSpace;
    s += renderNode(node, math);
    prev = node;
  }
  return s;
}

function renderNode(node: Node, math: boolean): string {
  switch (node.kind) {
    case "chars":
      return math && node.text.trim() === "" ? "" : node.text;
    case "group":
      return render(node.nodes, math);
    case "specials":
      return SPECIAL_TEXT[node.text] ?? node.text;
    case "math": {
      const content = render(node.nodes, true).replace(/^\s+|\s+$/gu, "");
      return node.display ? `\n    ${content.replace(/\n/g, "\n    ")}\n` : content;
    }
    case "macro":
      return renderMacro(node, math);
  }
}

function renderMacro(node: Extract<Node, { kind: "macro" }>, math: boolean): string {
  const arg = (i: number) => (node.args[i] ? render(node.args[i]!, math) : "");
  const { name } = node;
  if (node.failed) {
    // pylatexenc's "%s" templates then print as they are; its "%(2)s" ones raise
    if (name in TEMPLATE_UNFILLED) return TEMPLATE_UNFILLED[name];
    if (["sqrt", "footnote", "textcolor", "colorbox", "fcolorbox"].includes(name))
      throw new LatexTextError(`\\${name} without its arguments`);
  }
  if (name === "mathbf")
    return arg(0).replace(/[A-Za-z]/g, (ch) =>
      String.fromCodePoint((ch <= "Z" ? 0x1d400 - 65 : 0x1d41a - 97) + ch.charCodeAt(0)),
    );
  if (PASS.has(name)) return node.args.map((_, i) => arg(i)).join("");
  if (name === "frac" || name === "nicefrac") return `${arg(0)}/${arg(1)}`;
  if (name === "sqrt") return `√(${arg(1)})`;
  if (name === "textcolor" || name === "colorbox") return arg(2);
  if (name === "fcolorbox") return arg(4);
  if (name === "footnote") return `[${arg(1)}]`;
  if (name === "url") return `<${arg(0)}>`;
  if (name === "texorpdfstring") return arg(1);
  if (name in ACCENTS) {
    // every character of the (stripped) argument gets the mark; no argument at all accents a space
    const text = node.failed ? " " : pyStrip(arg(0));
    return Array.from(text, (ch) => (ch.replace("ı", "i").replace("ȷ", "j") + ACCENTS[name]).normalize("NFC")).join("");
  }
  if (name in SYMBOLS) return SYMBOLS[name];
  return ""; // unknown to pylatexenc's text converter (or parsed-but-discarded): dropped
}

/** Plain text of a LaTeX snippet, as pylatexenc's `latex_to_text` gives it (see the module note). */
export function latexToText(latex: string): string {
  return render(new Parser(latex).nodes(), false);
}
