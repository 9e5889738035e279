/**
 * CRC-32s of fixed-size blocks of a file, for data that is read a little at a time: no index file
 * is read whole, so each read checks the blocks it covers instead of the whole file being read
 * through at open. Blocks are 4 KiB in every file (CRC_BLOCK_SHIFT in bm25-format.ts).
 */
import { closeSync, openSync, readSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { writeFileAtomic } from "../util/atomic-write";
import { CRC_BLOCK_SHIFT, FILES, blockTableName, crcHex, type IndexFile } from "./bm25-format";

/** Block CRCs of a byte stream written in pieces of any size. */
export class BlockCrcs {
  private readonly crcs: number[] = [];
  private readonly size: number;
  private crc = 0;
  private fill = 0;

  constructor(shift: number) {
    this.size = 2 ** shift;
  }

  update(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(this.size - this.fill, bytes.length - at);
      this.crc = crc32(bytes.subarray(at, at + n), this.crc);
      this.fill += n;
      at += n;
      if (this.fill === this.size) {
        this.crcs.push(this.crc >>> 0);
        this.crc = 0;
        this.fill = 0;
      }
    }
  }

  /** One CRC per block, the last (partial) block included. */
  finish(): Uint32Array {
    if (this.fill > 0) this.crcs.push(this.crc >>> 0);
    this.crc = 0;
    this.fill = 0;
    return Uint32Array.from(this.crcs);
  }
}

/** Whether bytes, which start at block `first` and end at a block boundary or the file's end, match their blocks' CRCs. */
export function blocksMatch(bytes: Uint8Array, first: number, crcs: Uint32Array, shift: number): boolean {
  const size = 2 ** shift;
  for (let b = 0, at = 0; at < bytes.length; b++, at += size) {
    if (first + b >= crcs.length || crc32(bytes.subarray(at, at + size)) >>> 0 !== crcs[first + b]) return false;
  }
  return true;
}

/** What meta.json and the content hash record of a sealed data file. */
export interface SealedFile {
  bytes: number;
  /** CRC-32 of the block table (meta.json's blockCrc32). */
  blockCrc32: string;
  /** sha256 of the data file, hex (an input of contentHash). */
  sha256: string;
}

/**
 * The one place an index's block tables are written: called by the builder on each data file once
 * it is complete. Reads the file once (in pieces: it may be larger than memory), writes its block
 * table `<file>.crc32` next to it (atomically) and returns what meta.json records of it.
 */
export function sealDataFile(dir: string, key: IndexFile): SealedFile {
  const blocks = new BlockCrcs(CRC_BLOCK_SHIFT);
  const hash = createHash("sha256");
  const fd = openSync(join(dir, FILES[key]), "r");
  let bytes = 0;
  try {
    const piece = Buffer.allocUnsafe(8 << 20);
    for (let n; (n = readSync(fd, piece, 0, piece.length, bytes)) > 0; bytes += n) {
      blocks.update(piece.subarray(0, n));
      hash.update(piece.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  const table = blocks.finish();
  const tableBytes = Buffer.from(table.buffer, table.byteOffset, table.byteLength);
  writeFileAtomic(join(dir, blockTableName(key)), tableBytes);
  return { bytes, blockCrc32: crcHex(crc32(tableBytes)), sha256: hash.digest("hex") };
}
