/** Writes a text file line by line in large buffered writes, hashing the bytes as they go. */
import { createHash, type Hash } from "node:crypto";
import { open, type FileHandle } from "node:fs/promises";

export class LineFileWriter {
  private pending: string[] = [];
  private pendingChars = 0;
  private readonly hash: Hash = createHash("sha256");
  lines = 0;

  private constructor(private readonly handle: FileHandle) {}

  static async create(path: string): Promise<LineFileWriter> {
    return new LineFileWriter(await open(path, "w"));
  }

  /** Appends `line` and a newline. */
  async write(line: string): Promise<void> {
    this.pending.push(line, "\n");
    this.pendingChars += line.length + 1;
    this.lines++;
    if (this.pendingChars >= 1 << 20) await this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.pending.length) return;
    const bytes = Buffer.from(this.pending.join(""), "utf8");
    this.pending = [];
    this.pendingChars = 0;
    this.hash.update(bytes);
    await this.handle.write(bytes);
  }

  /** Flushes, syncs and closes; returns the file's sha256 (hex). */
  async close(): Promise<string> {
    try {
      await this.flush();
      await this.handle.sync();
    } finally {
      await this.handle.close();
    }
    return this.hash.digest("hex");
  }

  /** Closes without caring about the content (on failure paths). */
  async abandon(): Promise<void> {
    await this.handle.close().catch(() => undefined);
  }
}
