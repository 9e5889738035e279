/**
 * CRC-32s of fixed-size blocks of a file, for data that is read a little at a time: texts.bin is
 * never loaded, a search reads its k hits' bytes, so each read checks the blocks it covers instead
 * of the whole file being read through at open (half the bytes of an index).
 */
import { crc32 } from "node:zlib";

/** 4 KiB blocks: a hit's paragraph spans one or two, checked in a few microseconds; the table is 1/1024 of the file. */
export const BLOCK_SHIFT = 12;
export const BLOCK_SIZE = 1 << BLOCK_SHIFT;

export function blockCount(bytes: number): number {
  return Math.ceil(bytes / BLOCK_SIZE);
}

/** Block CRCs of a byte stream written in pieces of any size. */
export class BlockCrcs {
  private readonly crcs: number[] = [];
  private crc = 0;
  private fill = 0;

  update(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(BLOCK_SIZE - this.fill, bytes.length - at);
      this.crc = crc32(bytes.subarray(at, at + n), this.crc);
      this.fill += n;
      at += n;
      if (this.fill === BLOCK_SIZE) {
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
export function blocksMatch(bytes: Uint8Array, first: number, crcs: Uint32Array): boolean {
  for (let b = 0, at = 0; at < bytes.length; b++, at += BLOCK_SIZE) {
    if (first + b >= crcs.length || crc32(bytes.subarray(at, at + BLOCK_SIZE)) >>> 0 !== crcs[first + b]) return false;
  }
  return true;
}
