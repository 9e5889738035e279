/**
 * `json.dumps(value, ensure_ascii=False)` bytes, as the recipe writes every JSONL row: separators
 * ", " and ": ", key order kept. Strings: JSON.stringify already escapes exactly what Python does
 * (`"` `\\` \b \f \n \r \t, other controls below 0x20 as lowercase \u00xx; not "/", not DEL, not
 * U+2028); lone surrogates are out of scope (Python would fail to write them as UTF-8 anyway).
 * Numbers: safe integers print as Python ints; other finite numbers as Python's float repr.
 */

export type PyJson = null | boolean | number | string | PyJson[] | { [key: string]: PyJson };

export function pyJsonDumps(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return pyNumber(value);
    case "object": {
      if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(", ")}]`;
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === undefined) continue; // like JSON.stringify; Python has no undefined
        parts.push(`${JSON.stringify(k)}: ${pyJsonDumps(v)}`);
      }
      return `{${parts.join(", ")}}`;
    }
    default:
      throw new TypeError(`cannot write a ${typeof value} as JSON`);
  }
}

function pyNumber(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "Infinity";
  if (n === -Infinity) return "-Infinity";
  if (Number.isSafeInteger(n)) return Object.is(n, -0) ? "-0.0" : String(n);
  return pyFloatRepr(n);
}

/** Python's `repr(float)`: shortest round-trip digits, fixed notation for 1e-4 ≤ |x| < 1e16. */
export function pyFloatRepr(x: number): string {
  const [mantissa, expText] = Math.abs(x).toExponential().split("e");
  const exp = Number(expText);
  const digits = mantissa.replace(".", "");
  const sign = x < 0 ? "-" : "";
  if (exp >= -4 && exp < 16) {
    let fixed: string;
    if (exp < 0) fixed = "0." + "0".repeat(-exp - 1) + digits;
    else if (digits.length <= exp + 1) fixed = digits + "0".repeat(exp + 1 - digits.length) + ".0";
    else fixed = digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
    return sign + fixed;
  }
  const frac = digits.length > 1 ? "." + digits.slice(1) : "";
  return `${sign}${digits[0]}${frac}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}

const NON_FINITE: Readonly<Record<string, number>> = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };
/** Marks a non-finite number while JSON.parse reads the line; the random part keeps real strings from matching. */
const NON_FINITE_MARK = `\u0000py-non-finite-${Math.random().toString(36).slice(2)}:`;

/**
 * `json.loads`: JSON as Python writes it, where `json.dumps` writes NaN, Infinity and -Infinity
 * as bare words. They read as those numbers; anything else invalid throws JSON.parse's SyntaxError.
 */
export function pyJsonParse(text: string): unknown {
  let invalid: SyntaxError;
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    if (!(e instanceof SyntaxError) || !/NaN|Infinity/.test(text)) throw e;
    invalid = e;
  }
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    const word = ["NaN", "-Infinity", "Infinity"].find((w) => text.startsWith(w, i));
    if (word) {
      out += JSON.stringify(NON_FINITE_MARK + word);
      i += word.length - 1;
    } else out += c;
  }
  try {
    return JSON.parse(out, (_key, value: unknown) =>
      typeof value === "string" && value.startsWith(NON_FINITE_MARK)
        ? NON_FINITE[value.slice(NON_FINITE_MARK.length)]
        : value,
    ) as unknown;
  } catch (e) {
    // Invalid for another reason: the message about the text as written, not as rewritten here.
    if (e instanceof SyntaxError) throw invalid;
    throw e;
  }
}
