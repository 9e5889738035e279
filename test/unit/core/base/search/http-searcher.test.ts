/**
 * One index, many processes: `serveSearch` answers over HTTP exactly what the index answers in
 * process (1,000 queries, ids, titles, texts and scores to the bit), to 8 clients at once, and a
 * client that cannot use a URL says so in one line naming it.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeQueries, queryParagraphIds, SyntheticCorpus } from "../../../../../bench/search/synthetic-corpus";
import { SEARCH_SETTING_PATTERN, validateOverrides } from "../../../../../src/core/base/config";
import { FileFormatError, UserError } from "../../../../../src/core/base/errors";
import {
  buildIndex,
  HttpSearcher,
  openIndex,
  SearchServerError,
  serveSearch,
  type Bm25Searcher,
  type SearchServer,
} from "../../../../../src/core/base/search";
import { MAX_SEARCH_K, SEARCH_PROTOCOL } from "../../../../../src/core/base/search/search-wire";
import { closedPort, START_HINT } from "../../../../helpers/search-server";

/** A server that is not ours: it answers every request with `status` and `body`. */
async function foreignServer(status: number, body: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { "content-type": "text/html" });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("base/search: serve-search and the HTTP searcher", function () {
  this.timeout(120_000);
  let dir: string;
  let index: Bm25Searcher;
  let served: SearchServer;
  let queries: string[];

  before(async function () {
    this.timeout(120_000);
    dir = mkdtempSync(join(tmpdir(), "agent-lab-http-search-"));
    const docs = 5_000;
    const generator = new SyntheticCorpus({ docs, seed: 7, vocabulary: 250_000 });
    const kept = await generator.write(join(dir, "corpus.jsonl"), queryParagraphIds(docs, 500));
    const { short, long } = makeQueries(kept, 500, 5);
    queries = [...short, ...long];
    await buildIndex(join(dir, "corpus.jsonl"), join(dir, "bm25"), { workers: 0 });
    index = openIndex(join(dir, "bm25"));
    served = await serveSearch(index, { port: 0, host: "127.0.0.1" });
  });
  after(async () => {
    await served?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("returns what the in-process index returns on 1,000 queries, and its describe()", async () => {
    const remote = await HttpSearcher.connect(served.url);
    try {
      assert.equal(queries.length, 1_000);
      assert.deepEqual(remote.describe(), index.describe(), "the manifest's searcher is the same either way");
      let hits = 0;
      for (const [i, query] of queries.entries()) {
        const k = [1, 3, 10, 50][i % 4];
        const got = await remote.search(query, k);
        assert.deepEqual(got, index.search(query, k), `${query} (k ${k})`);
        hits += got.length;
      }
      assert.ok(hits > 10_000, `${hits} hits compared`);
      // Queries the index has no word of, and only stopwords, answer [] over the wire too.
      assert.deepEqual(await remote.search("zyxwvut", 3), []);
      assert.deepEqual(await remote.search("the of and", 3), []);
      assert.deepEqual(await remote.search("", 3), []);
    } finally {
      remote.close();
    }
  });

  it("answers 8 clients searching at once without an error, each what the index answers", async () => {
    const clients = await Promise.all(Array.from({ length: 8 }, () => HttpSearcher.connect(served.url)));
    try {
      const results = await Promise.all(
        clients.map((client, c) =>
          Promise.all(
            queries
              .filter((_, i) => i % 8 === c)
              .map(async (query) => ({ query, hits: await client.search(query, 3) })),
          ),
        ),
      );
      const answered = results.flat();
      assert.equal(answered.length, 1_000);
      for (const { query, hits } of answered) assert.deepEqual(hits, index.search(query, 3), query);
    } finally {
      for (const client of clients) client.close();
    }
  });

  it("refuses a malformed search with 400 and its reason, and names its routes on a 404", async () => {
    const post = (body: string) =>
      fetch(`${served.url}/search`, { method: "POST", body, headers: { "content-type": "application/json" } });
    const bad = await post(JSON.stringify({ query: "x", k: 0 }));
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { error: `"k" must be an integer from 1 to ${MAX_SEARCH_K}` });
    const notJson = await post("{");
    assert.equal(notJson.status, 400);
    assert.match(((await notJson.json()) as { error: string }).error, /^the body is not valid JSON/);
    const missing = await fetch(`${served.url}/nope`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { error: "no route /nope: use GET /describe or POST /search" });
    const described = (await (await fetch(`${served.url}/describe`)).json()) as { protocol: number };
    assert.equal(described.protocol, SEARCH_PROTOCOL);
  });

  it("says in one line, naming the URL, that nothing listens there (connection refused)", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    await assert.rejects(HttpSearcher.connect(url), (e: unknown) => {
      assert.ok(e instanceof SearchServerError && e instanceof UserError);
      assert.equal(e.message, `cannot reach the search server at ${url} (connection refused): ${START_HINT}`);
      return true;
    });
  });

  it("says in one line what a server that is not serve-search answered (HTTP 500 text, 200 HTML)", async () => {
    const failing = await foreignServer(500, "Internal Server Error\n<pre>stack…</pre>");
    const html = await foreignServer(200, "<html><body>hello</body></html>");
    try {
      await assert.rejects(HttpSearcher.connect(failing.url), (e: unknown) => {
        assert.ok(e instanceof SearchServerError);
        assert.equal(
          e.message,
          `the search server at ${failing.url} answered /describe with HTTP 500 (Internal Server Error): ${START_HINT}`,
        );
        return true;
      });
      await assert.rejects(HttpSearcher.connect(`${html.url}/`), (e: unknown) => {
        assert.ok(e instanceof SearchServerError);
        assert.equal(
          e.message,
          `the search server at ${html.url} answered /describe with HTTP 200 (<html><body>hello</body></html>): ${START_HINT}`,
        );
        return true;
      });
    } finally {
      failing.server.close();
      html.server.close();
    }
  });

  it("says in one line that the server went away between searches", async () => {
    const second = await serveSearch(index, { port: 0, host: "127.0.0.1" });
    const remote = await HttpSearcher.connect(second.url);
    try {
      assert.equal((await remote.search(queries[0], 3)).length, 3);
      await second.close();
      await assert.rejects(remote.search(queries[0], 3), (e: unknown) => {
        assert.ok(e instanceof SearchServerError);
        assert.match(
          e.message,
          new RegExp(`^cannot reach the search server at ${second.url} \\(connection (refused|reset)\\)`),
        );
        return true;
      });
    } finally {
      remote.close();
    }
  });

  it("refuses a URL that is not http:// before sending anything, and the setting is checked the same way", async () => {
    await assert.rejects(
      HttpSearcher.connect("https://example.org"),
      (e: unknown) =>
        e instanceof UserError &&
        e.message ===
          'search URL "https://example.org" is not an http:// URL, e.g. http://127.0.0.1:8766 (the searchUrl setting, --search-url)',
    );
    assert.deepEqual(validateOverrides({ searchUrl: "http://10.0.0.2:8766" }, "f"), {
      searchUrl: "http://10.0.0.2:8766",
    });
    assert.deepEqual(validateOverrides({ searchUrl: "" }, "f"), { searchUrl: "" });
    assert.throws(
      () => validateOverrides({ searchUrl: "localhost:8766" }, "agent-lab.json", () => 3),
      (e: unknown) =>
        e instanceof FileFormatError &&
        e.message ===
          'agent-lab.json:3: "searchUrl" must be an http:// URL, e.g. http://127.0.0.1:8766, or "" to open the index in process',
    );
  });

  it("the JSON schema and the VS Code setting say the setting's form as config.ts does", () => {
    const root = join(__dirname, "..", "..", "..", "..", "..");
    const schema = JSON.parse(readFileSync(join(root, "data", "schema", "agent-lab.schema.json"), "utf8")) as {
      properties: Record<string, { pattern?: string }>;
    };
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      contributes: { configuration: { properties: Record<string, { pattern?: string }> }[] | object };
    };
    const sections = ([] as { properties: Record<string, { pattern?: string }> }[]).concat(
      pkg.contributes.configuration as never,
    );
    const setting = sections.map((s) => s.properties["agentLab.searchUrl"]).find(Boolean);
    assert.equal(schema.properties.searchUrl.pattern, SEARCH_SETTING_PATTERN.source);
    assert.equal(setting?.pattern, SEARCH_SETTING_PATTERN.source);
  });
});
