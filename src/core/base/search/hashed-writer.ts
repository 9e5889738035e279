/**
 * A file written front to back through a fixed buffer, with its sha256 and CRC-32 computed on the
 * way: the streaming build writes index files far larger than it could hold, and meta.json needs
 * both sums of each (bm25-format.ts) without reading the file back.
 */
import { createHash, type Hash } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { crc32 } from "node:zlib";

export interface WrittenFile {
  bytes: number;
  sha256: string;
  crc: number;
}

export class HashedWriter {
  private readonly fd: number;
  private readonly buffer: Buffer;
  private fill = 0;
  private written = 0;
  private readonly hash: Hash = createHash("sha256");
  private crc = 0;

  constructor(file: string, bufferBytes = 4 << 20) {
    this.fd = openSync(file, "w");
    this.buffer = Buffer.allocUnsafe(bufferBytes);
  }

  write(view: ArrayBufferView): void {
    let bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    while (bytes.length > 0) {
      if (this.fill === 0 && bytes.length >= this.buffer.length) {
        this.out(bytes); // large pieces skip the copy
        return;
      }
      const n = Math.min(this.buffer.length - this.fill, bytes.length);
      this.buffer.set(bytes.subarray(0, n), this.fill);
      this.fill += n;
      bytes = bytes.subarray(n);
      if (this.fill === this.buffer.length) this.flush();
    }
  }

  private flush(): void {
    if (this.fill > 0) this.out(this.buffer.subarray(0, this.fill));
    this.fill = 0;
  }

  private out(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at, bytes.length - at);
    this.hash.update(bytes);
    this.crc = crc32(bytes, this.crc);
    this.written += bytes.length;
  }

  close(): WrittenFile {
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
    }
    return { bytes: this.written, sha256: this.hash.digest("hex"), crc: this.crc };
  }

  /** Closes without the sums (a failed build). */
  abandon(): void {
    closeSync(this.fd);
  }
}
