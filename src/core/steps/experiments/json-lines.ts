/**
 * The line of every value in a JSON text, by path ("arms[1].grpo.steps"), so a spec's problems name
 * file:line. A small scanner over already-valid JSON (JSON.parse has checked it): it only tracks
 * where each value starts.
 */
export function jsonValueLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  let i = 0;
  let line = 1;
  const skipWs = () => {
    while (i < text.length && /\s/.test(text[i])) {
      if (text[i] === "\n") line++;
      i++;
    }
  };
  const readString = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    skipWs();
    lines.set(path, line);
    const c = text[i];
    if (c === "{") {
      i++;
      skipWs();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        skipWs();
        const key = readString();
        skipWs();
        i++; // :
        value(path ? `${path}.${key}` : key);
        skipWs();
        if (text[i++] === "}") return;
      }
    }
    if (c === "[") {
      i++;
      skipWs();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (let k = 0; ; k++) {
        value(`${path}[${k}]`);
        skipWs();
        if (text[i++] === "]") return;
      }
    }
    if (c === '"') {
      readString();
      return;
    }
    while (i < text.length && !/[\s,\]}]/.test(text[i])) i++;
  };
  value("");
  return lines;
}

/** The line of `path`, else of its nearest parent that has one. */
export function lineOfPath(lines: Map<string, number>, path: string): number | undefined {
  for (let p = path; ;) {
    const l = lines.get(p);
    if (l !== undefined) return l;
    if (!p) return undefined;
    const cut = Math.max(p.lastIndexOf("."), p.lastIndexOf("["));
    p = cut < 0 ? "" : p.slice(0, cut);
  }
}
