/**
 * A file written front to back through a fixed buffer: the streaming build writes index files far
 * larger than it could hold, a term's postings at a time (sealDataFile in block-crc.ts then sums
 * each finished file).
 */
import { closeSync, openSync, writeSync } from "node:fs";

export class FileWriter {
  private readonly fd: number;
  private readonly buffer: Buffer;
  private fill = 0;
  private closed = false;

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
  }

  /** Writes what is buffered and closes the file. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
    }
  }

  /** Closes without writing what is buffered (a failed build). */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
