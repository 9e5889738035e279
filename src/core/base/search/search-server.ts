/**
 * One index, many processes: serves a Searcher over HTTP (search-wire.ts) so eval, GRPO and sft-data
 * jobs share one opened index instead of each opening its own. Searches run one at a time on this
 * process's thread (the index answers synchronously); requests from many clients queue on the socket.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DESCRIBE_ROUTE,
  MAX_REQUEST_BYTES,
  SEARCH_PROTOCOL,
  SEARCH_ROUTE,
  searchRequestProblem,
  type DescribeAnswer,
  type ErrorAnswer,
  type SearchAnswer,
  type SearchRequest,
} from "./search-wire";
import type { Searcher } from "./searcher";

export interface SearchServerOptions {
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** One line per request the server could not answer (its own failures, not a client's bad request). */
  log?: (line: string) => void;
}

export interface SearchServer {
  /** http://host:port, the address clients are given. */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts listening; rejects with the system error (EADDRINUSE, EACCES…) when the port cannot be had. */
export async function serveSearch(searcher: Searcher, o: SearchServerOptions): Promise<SearchServer> {
  // Asked once: an index's identity does not change while it is served.
  const described: DescribeAnswer = { protocol: SEARCH_PROTOCOL, describe: searcher.describe() };
  const server = createServer((req, res) => {
    answer(searcher, described, req, res).catch((e: unknown) => {
      o.log?.(`${req.method} ${req.url}: ${(e as Error).message}`);
      if (!res.headersSent) send(res, 500, { error: `the search failed: ${(e as Error).message}` });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = o.host.includes(":") ? `[${o.host}]` : o.host;
  return { url: `http://${host}:${port}`, close: () => closeServer(server) };
}

async function answer(
  searcher: Searcher,
  described: DescribeAnswer,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (path === DESCRIBE_ROUTE && req.method === "GET") return send(res, 200, described);
  if (path !== SEARCH_ROUTE)
    return send(res, 404, { error: `no route ${path}: use GET ${DESCRIBE_ROUTE} or POST ${SEARCH_ROUTE}` });
  if (req.method !== "POST") return send(res, 405, { error: `${SEARCH_ROUTE} takes a POST with a JSON body` });
  const text = await readBody(req);
  if (text === undefined) return send(res, 413, { error: `request body over ${MAX_REQUEST_BYTES} bytes` });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    return send(res, 400, { error: `the body is not valid JSON (${(e as Error).message})` });
  }
  const problem = searchRequestProblem(body);
  if (problem) return send(res, 400, { error: problem });
  const { query, k } = body as SearchRequest;
  const reply: SearchAnswer = { hits: await searcher.search(query, k) };
  send(res, 200, reply);
}

/** The request's body as text; undefined when it is larger than a request can be. */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) over = true;
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(over ? undefined : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: DescribeAnswer | SearchAnswer | ErrorAnswer): void {
  const bytes = Buffer.from(JSON.stringify(body), "utf8");
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": bytes.length });
  res.end(bytes);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Keep-alive sockets of clients still running would hold the close open.
    server.closeAllConnections();
  });
}
