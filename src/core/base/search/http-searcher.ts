/**
 * A Searcher that asks `agent-lab serve-search` (search-wire.ts) instead of opening an index: many
 * jobs share one index in one process. `connectSearcher` asks the server's describe() first, so an
 * unreachable or wrong URL is refused before a run folder is written, and the run's manifest records
 * the served index's identity (its content hash) exactly as an in-process run would.
 */
import { Agent, request } from "node:http";
import { SEARCH_URL_FORM, SEARCH_URL_PATTERN } from "../config";
import { UserError } from "../errors";
import {
  DESCRIBE_ROUTE,
  readDescribeAnswer,
  readErrorAnswer,
  readSearchAnswer,
  SEARCH_PROTOCOL,
  SEARCH_ROUTE,
  type SearchRequest,
} from "./search-wire";
import type { SearchHit, Searcher } from "./searcher";

/** A search that has not answered in this long is reported instead of waited on for ever. */
export const SEARCH_TIMEOUT_MS = 60_000;

/** What to do about a server that cannot be used, said at the end of every refusal. */
const START_HINT =
  'start it with "agent-lab serve-search --index DIR", or point searchUrl (--search-url) at a running one';

/** The search server could not be reached, or answered something other than the wire's JSON. */
export class SearchServerError extends UserError {}

export class HttpSearcher implements Searcher {
  private constructor(
    /** The server's address as given (no trailing slash). */
    readonly url: string,
    private readonly served: Record<string, unknown>,
    private readonly agent: Agent,
    private readonly timeoutMs: number,
  ) {}

  /** Connects to a server: its describe() is asked now, so a bad URL fails here, in one line. */
  static async connect(url: string, o: { timeoutMs?: number } = {}): Promise<HttpSearcher> {
    if (!SEARCH_URL_PATTERN.test(url))
      throw new UserError(
        `search URL ${JSON.stringify(url)} is not ${SEARCH_URL_FORM} (the searchUrl setting, --search-url)`,
      );
    const base = url.replace(/\/+$/, "");
    // Keep-alive: a search is one small request, and a job sends thousands.
    const agent = new Agent({ keepAlive: true });
    const timeoutMs = o.timeoutMs ?? SEARCH_TIMEOUT_MS;
    try {
      const body = await call(agent, base, DESCRIBE_ROUTE, undefined, timeoutMs);
      const described = readDescribeAnswer(body);
      if (!described) throw notOurs(base, DESCRIBE_ROUTE);
      if (described.protocol !== SEARCH_PROTOCOL)
        throw new SearchServerError(
          `the search server at ${base} speaks protocol ${described.protocol}, this agent-lab ${SEARCH_PROTOCOL}: run the same version of agent-lab on both sides`,
        );
      return new HttpSearcher(base, described.describe, agent, timeoutMs);
    } catch (e) {
      agent.destroy();
      throw e;
    }
  }

  async search(query: string, k: number): Promise<SearchHit[]> {
    const request: SearchRequest = { query, k };
    const body = await call(this.agent, this.url, SEARCH_ROUTE, request, this.timeoutMs);
    const answer = readSearchAnswer(body);
    if (!answer) throw notOurs(this.url, SEARCH_ROUTE);
    return answer.hits;
  }

  /**
   * The served index's own describe(), unchanged: a run's fingerprint (manifest `search.searcher`) is
   * the same searched in process or over HTTP, so such runs compare and resume across the two.
   */
  describe(): Record<string, unknown> {
    return this.served;
  }

  /** Closes the kept-alive connections (a process that ends need not call it: they do not hold it open). */
  close(): void {
    this.agent.destroy();
  }
}

function notOurs(base: string, route: string): SearchServerError {
  return new SearchServerError(
    `the server at ${base} answered ${route} with something other than agent-lab's search JSON: is it an agent-lab serve-search? ${START_HINT}`,
  );
}

/** One request; resolves to the parsed JSON of a 200 answer, rejects with a one-line SearchServerError otherwise. */
function call(
  agent: Agent,
  base: string,
  route: string,
  body: SearchRequest | undefined,
  timeoutMs: number,
): Promise<unknown> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), "utf8");
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${route}`,
      {
        agent,
        method: payload ? "POST" : "GET",
        headers: payload ? { "content-type": "application/json", "content-length": payload.length } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (e) => reject(unreachable(base, e)));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            // Not JSON: said below, with the status and the start of what came instead.
            parsed = undefined;
          }
          if (res.statusCode === 200 && parsed !== undefined) return resolve(parsed);
          const reason = readErrorAnswer(parsed) ?? excerpt(text);
          reject(
            new SearchServerError(
              `the search server at ${base} answered ${route} with HTTP ${res.statusCode}${reason ? ` (${reason})` : ""}: ${START_HINT}`,
            ),
          );
        });
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(
        new SearchServerError(
          `the search server at ${base} did not answer ${route} within ${timeoutMs / 1000} s: ${START_HINT}`,
        ),
      ),
    );
    req.on("error", (e) => reject(e instanceof SearchServerError ? e : unreachable(base, e)));
    req.end(payload);
  });
}

const CONNECTION_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "no such host",
  EHOSTUNREACH: "host unreachable",
  ETIMEDOUT: "timed out",
};

function unreachable(base: string, e: Error): SearchServerError {
  const code = (e as NodeJS.ErrnoException).code;
  const what = (code && CONNECTION_WORDS[code]) ?? code ?? e.message;
  return new SearchServerError(`cannot reach the search server at ${base} (${what}): ${START_HINT}`);
}

/** The first line of an unexpected body, shortened, for the error message. */
function excerpt(text: string): string {
  const line = text.trim().split("\n")[0].replace(/\s+/g, " ");
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
