/**
 * Untrusted text as literal markdown inline text: every character markdown (or the HTML a preview
 * renders inside it) gives a meaning to is escaped, and line breaks become spaces, so a title from a
 * file can neither add a heading, a link or an image nor end the line it is on.
 */
/** Characters with a meaning inside a line (emphasis, code, links and images, headings' closing #, tables, strikethrough). */
const MARKUP = /[\\`*_[\]#|~]/g;

export function markdownText(text: string): string {
  return text
    .replace(/[\r\n]+/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(MARKUP, (c) => `\\${c}`);
}
