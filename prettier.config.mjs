// The formatter (ESLint has none; see eslint.config.mjs for why ESLint lints). Not applied to the code yet:
// `npm run format` rewrites everything at once, in one commit of its own; `npm run format:check` reports.
// The options restate the code's current style, with lines at 120 columns.
export default {
  printWidth: 120,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: false,
  trailingComma: "all",
  arrowParens: "always",
};
