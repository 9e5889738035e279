/** Local parquet files, read a row group at a time through hyparquet (the environments' hub files). */
import { open, stat } from "node:fs/promises";
import { FileFormatError } from "../errors";

type ParquetModule = typeof import("hyparquet");

/**
 * A local parquet file opened for reading the named columns (refused in one line when it is not
 * parquet or lacks one of them); every environment that reads parquet reads its files through it.
 */
export async function openParquet(file: string, columns: readonly string[]) {
  const hyparquet: ParquetModule = await import("hyparquet");
  const { compressors } = await import("hyparquet-compressors");
  let buffer;
  let metadata;
  try {
    buffer = await fileAsyncBuffer(file);
    metadata = await hyparquet.parquetMetadataAsync(buffer);
  } catch (e) {
    throw new FileFormatError(file, undefined, `not a readable parquet file (${(e as Error).message})`);
  }
  const present = new Set(metadata.schema.map((s) => s.name));
  const missing = columns.filter((c) => !present.has(c));
  if (missing.length)
    throw new FileFormatError(file, undefined, `parquet file has no column ${missing.map((c) => `"${c}"`).join(", ")}`);
  return { hyparquet, compressors, buffer, metadata, columns: [...columns] };
}

/** Random access to a local file for hyparquet, which reads only the byte ranges it needs. */
export async function fileAsyncBuffer(
  file: string,
): Promise<{ byteLength: number; slice(start: number, end?: number): Promise<ArrayBuffer> }> {
  const { size } = await stat(file);
  return {
    byteLength: size,
    async slice(start: number, end = size) {
      const handle = await open(file, "r");
      try {
        const bytes = new Uint8Array(Math.max(0, end - start));
        let done = 0;
        while (done < bytes.length) {
          const { bytesRead } = await handle.read(bytes, done, bytes.length - done, start + done);
          if (bytesRead === 0) break;
          done += bytesRead;
        }
        return bytes.buffer;
      } finally {
        await handle.close();
      }
    },
  };
}
