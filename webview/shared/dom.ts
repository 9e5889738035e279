/**
 * The one way webview code builds DOM: elements and text nodes. Untrusted text (model output,
 * Wikipedia paragraphs, questions, file content) only ever becomes a text node or an attribute
 * value set through the DOM API — never HTML — so it cannot create elements or handlers. No
 * innerHTML anywhere in the webviews.
 */
export type Child = Node | string | number | null | undefined | false;

export interface Attrs {
  class?: string;
  title?: string;
  [attr: string]: string | number | boolean | undefined;
}

/** Attribute names that would run code or load something; refused outright. */
function unsafeAttribute(name: string): boolean {
  const n = name.toLowerCase();
  return (
    n.startsWith("on") ||
    n === "src" ||
    n === "srcdoc" ||
    n === "href" ||
    n === "style" ||
    n === "action" ||
    n === "formaction"
  );
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K];
export function h(tag: string, attrs: Attrs | null, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs: Attrs | null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === false) continue;
      if (unsafeAttribute(k)) throw new Error(`refusing to set attribute ${k}`);
      el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  append(el, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag: string, attrs: Record<string, string | number | undefined>, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined) continue;
    if (unsafeAttribute(k)) throw new Error(`refusing to set attribute ${k}`);
    el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

/**
 * A <vscode-checkbox>'s state, also before the element is defined (host.ts loads the elements
 * after the first frame): until then its `checked` property does not exist and the attribute it
 * was made with holds the state.
 */
export function isChecked(box: Element): boolean {
  const checked = (box as { checked?: unknown }).checked;
  return typeof checked === "boolean" ? checked : box.hasAttribute("checked");
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

export function fmt(x: number | null | undefined, digits = 3): string {
  return x === undefined || x === null || !Number.isFinite(x) ? "–" : x.toFixed(digits);
}

/** A score (F1, accuracy) as charts read it out: its mean in the digits of its interval and of the tables. */
export const formatScore = (x: number | null): string => fmt(x);

export function usd(x: number): string {
  return x === 0 ? "$0" : x < 0.01 ? `$${x.toFixed(5)}` : `$${x.toFixed(4)}`;
}
