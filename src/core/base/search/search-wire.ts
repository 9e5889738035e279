/**
 * The wire between `agent-lab serve-search` (search-server.ts) and the processes that search over it
 * (http-searcher.ts), written once for both sides. JSON over HTTP:
 *
 *   GET  /describe                      → 200 {"protocol": 1, "describe": {…the index's describe()…}}
 *   POST /search {"query": "…", "k": 3} → 200 {"hits": [{"id", "title", "text", "score"}, …]}
 *   anything else, or a bad request     → 4xx/5xx {"error": "one line"}
 *
 * The address's form and the default port belong to the searchUrl setting (config.ts).
 *
 * Scores travel as JSON numbers, which JavaScript writes and reads back to the same double, so a
 * search over HTTP returns what the same index returns in process, bit for bit.
 */
import type { SearchHit } from "./searcher";

/** Bumped when a request or an answer changes shape; the client refuses a server of another protocol. */
export const SEARCH_PROTOCOL = 1;

export const DESCRIBE_ROUTE = "/describe";
export const SEARCH_ROUTE = "/search";

/** The most paragraphs one search may ask for (the `search` command's -k range). */
export const MAX_SEARCH_K = 1000;

/** Request bodies are a query and a number: anything bigger is not one. */
export const MAX_REQUEST_BYTES = 1 << 20;

export interface DescribeAnswer {
  protocol: number;
  describe: Record<string, unknown>;
}

export interface SearchRequest {
  query: string;
  k: number;
}

export interface SearchAnswer {
  hits: SearchHit[];
}

export interface ErrorAnswer {
  error: string;
}

/** The request's problem in words, or null when it is a search this server runs. */
export function searchRequestProblem(body: unknown): string | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return 'expected {"query": string, "k": int}';
  const { query, k } = body as Record<string, unknown>;
  if (typeof query !== "string") return '"query" must be a string';
  if (!Number.isInteger(k) || (k as number) < 1 || (k as number) > MAX_SEARCH_K)
    return `"k" must be an integer from 1 to ${MAX_SEARCH_K}`;
  return null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const isHit = (v: unknown): v is SearchHit =>
  isObject(v) &&
  typeof v.id === "number" &&
  typeof v.title === "string" &&
  typeof v.text === "string" &&
  typeof v.score === "number";

/** A describe answer read back, or null when the body is not one. */
export function readDescribeAnswer(body: unknown): DescribeAnswer | null {
  if (!isObject(body) || typeof body.protocol !== "number" || !isObject(body.describe)) return null;
  return { protocol: body.protocol, describe: body.describe };
}

/** A search answer read back, or null when the body is not one. */
export function readSearchAnswer(body: unknown): SearchAnswer | null {
  if (!isObject(body) || !Array.isArray(body.hits) || !body.hits.every(isHit)) return null;
  return { hits: body.hits };
}

/** The server's own one-line reason in an error answer, if it gave one. */
export function readErrorAnswer(body: unknown): string | undefined {
  return isObject(body) && typeof body.error === "string" ? body.error : undefined;
}
