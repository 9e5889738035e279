/**
 * Downloads a checkpoint's archive and extracts it into a folder, as `tinker checkpoint download`
 * does: the folder is `<out>/<run id>_<kind>_<name>` (the official CLI's name for it), refused when
 * it exists unless `force`. The archive URL is a pre-signed link: it is fetched without the API key,
 * and the files appear under the final name only once all of them are written.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../errors";
import { extractTar } from "../util/tar";
import { redact } from "./errors";
import { describeFetchError } from "./http";
import { parseTinkerPath } from "./paths";
import type { TinkerService } from "./service";

export interface DownloadProgress {
  bytes: number;
  /** From Content-Length; undefined when the server did not say. */
  totalBytes: number | undefined;
}

export interface DownloadResult {
  dir: string;
  files: string[];
  bytes: number;
}

/** The folder name the official CLI extracts a checkpoint into. */
export function downloadFolderName(tinkerPath: string): string {
  return tinkerPath.replace("tinker://", "").split("/").join("_");
}

export async function downloadCheckpoint(
  service: TinkerService,
  tinkerPath: string,
  outDir: string,
  options: {
    force?: boolean;
    onProgress?: (p: DownloadProgress) => void;
    signal?: AbortSignal;
    fetch?: typeof fetch;
  } = {},
): Promise<DownloadResult> {
  parseTinkerPath(tinkerPath);
  const target = join(outDir, downloadFolderName(tinkerPath));
  if (existsSync(target) && !options.force)
    throw new UserError(`${target} exists; pass --force to replace it, or choose another --out folder`);
  const { url } = await service.checkpointArchiveUrl(tinkerPath, { signal: options.signal });
  const shownUrl = redact(url.split("?")[0], []);
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(url, { signal: options.signal });
  } catch (e) {
    throw new UserError(`could not download the archive of ${tinkerPath} from ${shownUrl}: ${describeFetchError(e)}`);
  }
  if (!res.ok || !res.body)
    throw new UserError(`the archive of ${tinkerPath} at ${shownUrl} answered HTTP ${res.status}; try again later`);
  const declared = Number(res.headers.get("content-length"));
  const totalBytes = Number.isFinite(declared) && declared > 0 ? declared : undefined;
  const chunks: Buffer[] = [];
  let bytes = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(Buffer.from(value));
    bytes += value.byteLength;
    options.onProgress?.({ bytes, totalBytes });
  }
  if (totalBytes !== undefined && bytes !== totalBytes)
    throw new UserError(`the archive of ${tinkerPath} ended after ${bytes} of ${totalBytes} bytes; try again`);
  mkdirSync(outDir, { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial);
  try {
    const files = extractTar(Buffer.concat(chunks), partial, `the archive of ${tinkerPath}`);
    rmSync(target, { recursive: true, force: true });
    renameSync(partial, target);
    return { dir: target, files, bytes };
  } catch (e) {
    rmSync(partial, { recursive: true, force: true });
    throw e;
  }
}
