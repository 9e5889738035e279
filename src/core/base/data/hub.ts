/**
 * Downloads a dataset's parquet files from the Hugging Face hub (the repository and config an
 * environment's info declares, `prepareSources.hub`), into a cache folder, with progress and
 * resume: a partial download is kept as `<name>.part` and continued with an HTTP Range request, after a dropped connection within the same
 * run (a few retries) or in the next run. Finished files are checked against the size and sha256 the
 * hub lists for them.
 * Honours HF_ENDPOINT (a mirror or a local server) and HF_TOKEN; the cache lives in
 * $AGENT_LAB_CACHE/hub or ~/.cache/agent-lab/hub.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { UserError } from "../errors";

/** A dataset on the hub: an environment's info declares its own (`prepareSources.hub`). */
export interface HubDataset {
  repo: string;
  config: string;
}

export interface HubOptions {
  endpoint?: string;
  token?: string;
  /** Folder for downloaded files (default: $AGENT_LAB_CACHE/hub or ~/.cache/agent-lab/hub). */
  cacheDir?: string;
  /** Another repository or config than the environment's declared one (a mirror, a test's). */
  repo?: string;
  config?: string;
  revision?: string;
  /** Attempts per file when the connection drops (each resumes where the last stopped). */
  attempts?: number;
  onProgress?: (p: DownloadProgress) => void;
  log?: (line: string) => void;
}

export interface DownloadProgress {
  file: string;
  received: number;
  total: number | undefined;
}

export interface HubFile {
  /** Path inside the repository, e.g. distractor/train-00000-of-00002.parquet. */
  path: string;
  url: string;
  size?: number;
  /** sha256 of the content when the hub lists it (LFS files). */
  sha256?: string;
}

function settings(opts: HubOptions & HubDataset) {
  const endpoint = (opts.endpoint ?? process.env.HF_ENDPOINT ?? "https://huggingface.co").replace(/\/+$/, "");
  const token = opts.token ?? process.env.HF_TOKEN ?? undefined;
  const cacheDir = opts.cacheDir ?? join(process.env.AGENT_LAB_CACHE || join(homedir(), ".cache", "agent-lab"), "hub");
  return {
    endpoint,
    token: token || undefined,
    cacheDir,
    repo: opts.repo,
    config: opts.config,
    revision: opts.revision ?? "main",
    attempts: opts.attempts ?? 5,
  };
}

function authHeaders(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

async function getJson(url: string, token: string | undefined): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { ...authHeaders(token), accept: "application/json" } });
  } catch (e) {
    throw new UserError(
      `cannot reach ${url} (${(e as Error).message}); offline? use --train FILE --dev FILE with local files`,
    );
  }
  if (!res.ok)
    throw new UserError(
      `${url}: HTTP ${res.status}${res.status === 401 || res.status === 403 ? " (set HF_TOKEN?)" : ""}`,
    );
  return res.json();
}

/**
 * The config's parquet files per split (the dataset's own split names, e.g. train and validation,
 * or train and test), sorted by name, from the repository tree; falls back to the hub's parquet
 * conversion listing when the repository holds no parquet files. Every split must have a file.
 */
export async function listHubSplitFiles<S extends string>(
  splits: readonly S[],
  opts: HubOptions & HubDataset,
): Promise<Record<S, HubFile[]>> {
  const s = settings(opts);
  const rev = encodeURIComponent(s.revision);
  const treeUrl = `${s.endpoint}/api/datasets/${s.repo}/tree/${rev}/${s.config}`;
  const tree = await getJson(treeUrl, s.token);
  const files: HubFile[] = [];
  if (Array.isArray(tree)) {
    for (const entry of tree as {
      type?: string;
      path?: string;
      size?: number;
      lfs?: { oid?: string; size?: number };
    }[]) {
      if (entry.type !== "file" || typeof entry.path !== "string" || !entry.path.endsWith(".parquet")) continue;
      files.push({
        path: entry.path,
        url: `${s.endpoint}/datasets/${s.repo}/resolve/${rev}/${entry.path.split("/").map(encodeURIComponent).join("/")}`,
        size: entry.lfs?.size ?? entry.size,
        sha256: entry.lfs?.oid,
      });
    }
  }
  const bySplit = (split: string) =>
    files
      .filter((f) => basename(f.path).startsWith(`${split}-`))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const complete = (r: Record<S, HubFile[]>) => splits.every((split) => r[split].length > 0);
  const collect = (of: (split: string) => HubFile[]) =>
    Object.fromEntries(splits.map((split) => [split, of(split)])) as Record<S, HubFile[]>;
  let result = collect(bySplit);
  if (!complete(result)) {
    const listing = (await getJson(`${s.endpoint}/api/datasets/${s.repo}/parquet/${s.config}`, s.token)) as Record<
      string,
      unknown
    >;
    const urls = (split: string): HubFile[] =>
      (Array.isArray(listing?.[split]) ? (listing[split] as unknown[]) : [])
        .filter((u): u is string => typeof u === "string")
        .sort()
        .map((url) => ({ path: `${s.config}/${split}/${basename(new URL(url).pathname)}`, url }));
    result = collect(urls);
  }
  if (!complete(result)) {
    throw new UserError(`no ${splits.join("/")} parquet files found for ${s.repo} (${s.config}) at ${s.endpoint}`);
  }
  return result;
}

/** Local path of a downloaded file, downloading (or resuming) it when not already in the cache. */
export async function downloadHubFile(file: HubFile, opts: HubOptions & HubDataset): Promise<string> {
  const s = settings(opts);
  const target = join(s.cacheDir, "datasets", s.repo, s.revision, ...file.path.split("/"));
  const part = `${target}.part`;
  if (existsSync(target) && (file.size === undefined || (await stat(target)).size === file.size)) return target;
  await mkdir(dirname(target), { recursive: true });
  let lastError = "";
  for (let attempt = 1; attempt <= s.attempts; attempt++) {
    const have = existsSync(part) ? (await stat(part)).size : 0;
    if (file.size !== undefined && have === file.size) break;
    if (file.size !== undefined && have > file.size) {
      await rm(part);
      continue;
    }
    try {
      await fetchInto(file, part, have, s.token, opts.onProgress);
    } catch (e) {
      if (e instanceof UserError) throw e;
      lastError = (e as Error).message;
      opts.log?.(
        `download of ${file.path} interrupted (${lastError}); resuming (attempt ${attempt + 1} of ${s.attempts})`,
      );
      await new Promise((r) => setTimeout(r, Math.min(200 * attempt, 2000)));
      continue;
    }
    if (file.size === undefined || (await stat(part)).size === file.size) break;
  }
  const got = existsSync(part) ? (await stat(part)).size : 0;
  if (file.size !== undefined && got !== file.size) {
    throw new UserError(
      `download of ${file.url} stopped at ${got} of ${file.size} bytes after ${s.attempts} attempts (${lastError}); run again to resume`,
    );
  }
  if (file.sha256 && (await sha256File(part)) !== file.sha256) {
    await rm(part, { force: true });
    throw new UserError(
      `${file.path}: downloaded content does not match the hub's sha256 ${file.sha256}; deleted, run again`,
    );
  }
  await rename(part, target);
  return target;
}

/** One HTTP request appending to `part` from byte `have`. Network errors throw plain Errors (retried). */
async function fetchInto(
  file: HubFile,
  part: string,
  have: number,
  token: string | undefined,
  onProgress?: HubOptions["onProgress"],
): Promise<void> {
  const headers: Record<string, string> = { ...authHeaders(token) };
  if (have > 0) headers.range = `bytes=${have}-`;
  const res = await fetch(file.url, { headers });
  if (res.status === 416 && have > 0) {
    // the server has nothing past `have`: the partial file is complete, or corrupt (size check decides)
    await res.body?.cancel();
    return;
  }
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel();
    const hint = res.status === 401 || res.status === 403 ? " (set HF_TOKEN?)" : "";
    if (res.status >= 500) throw new Error(`HTTP ${res.status}`);
    throw new UserError(`${file.url}: HTTP ${res.status}${hint}`);
  }
  const resumed = res.status === 206;
  let received = resumed ? have : 0; // a 200 means the server ignored the range: start over
  const length = Number(res.headers.get("content-length"));
  const total = file.size ?? (Number.isFinite(length) && length > 0 ? received + length : undefined);
  const handle = await open(part, resumed ? "a" : "w");
  try {
    if (!res.body) throw new Error("empty response body");
    let lastReport = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      await handle.write(chunk);
      received += chunk.length;
      const now = Date.now();
      if (onProgress && now - lastReport > 250) {
        lastReport = now;
        onProgress({ file: file.path, received, total });
      }
    }
    onProgress?.({ file: file.path, received, total });
  } finally {
    await handle.close();
  }
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (c) => hash.update(c))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

/** Where the hub's files come from, for prepare's source line: endpoint, dataset, config and revision. */
export function hubSourceDescription(opts: HubOptions & HubDataset): string {
  const s = settings(opts);
  return `${s.endpoint}/datasets/${s.repo} (${s.config}, ${s.revision})`;
}
