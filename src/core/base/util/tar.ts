/**
 * Plain (uncompressed) POSIX ustar archives of regular files: the format of a Tinker checkpoint
 * archive (the official CLI saves the download as `<id>.tar` and opens it with Python's tarfile).
 * The local backend writes them; `agent-lab ckpt download` reads them. Only regular files and
 * folders are written or accepted: links and device entries are refused on extraction, and so is
 * any name that would land outside the target folder.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, normalize, sep } from "node:path";
import { UserError } from "../errors";

const BLOCK = 512;

export interface TarFile {
  /** Relative name inside the archive, "/"-separated. */
  name: string;
  data: Uint8Array;
  /** Modification time (default: now). */
  mtime?: Date;
}

function putString(header: Buffer, offset: number, length: number, value: string): void {
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length > length) throw new Error(`tar field "${value}" is longer than ${length} bytes`);
  bytes.copy(header, offset);
}

/** An octal number field: digits, zero-padded, then a NUL. */
function putOctal(header: Buffer, offset: number, length: number, value: number): void {
  putString(header, offset, length, value.toString(8).padStart(length - 1, "0") + "\0");
}

function checksum(header: Buffer): number {
  let sum = 0;
  // The checksum field itself counts as eight spaces.
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i];
  return sum;
}

function fileHeader(file: TarFile): Buffer {
  const header = Buffer.alloc(BLOCK);
  if (Buffer.byteLength(file.name) > 100) throw new Error(`tar entry name longer than 100 bytes: ${file.name}`);
  putString(header, 0, 100, file.name);
  putOctal(header, 100, 8, 0o644);
  putOctal(header, 108, 8, 0);
  putOctal(header, 116, 8, 0);
  putOctal(header, 124, 12, file.data.byteLength);
  putOctal(header, 136, 12, Math.floor((file.mtime ?? new Date()).getTime() / 1000));
  header[156] = "0".charCodeAt(0);
  putString(header, 257, 6, "ustar\0");
  putString(header, 263, 2, "00");
  putString(header, 148, 8, checksum(header).toString(8).padStart(6, "0") + "\0 ");
  return header;
}

/** The archive's bytes: one header and padded data per file, then two empty blocks. */
export function writeTar(files: readonly TarFile[]): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    parts.push(fileHeader(file), Buffer.from(file.data));
    const pad = (BLOCK - (file.data.byteLength % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

function readString(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString("utf8");
}

function readOctal(block: Buffer, offset: number, length: number): number {
  const text = readString(block, offset, length).trim();
  return text ? parseInt(text, 8) : 0;
}

/** Thrown for an archive that is not a well-formed tar of files; `source` names where it came from. */
export class TarFormatError extends UserError {
  constructor(source: string, why: string) {
    super(`${source} is not a usable checkpoint archive: ${why}`);
    this.name = "TarFormatError";
  }
}

/** The regular files of an archive, in order (folders are implied by their files' names). */
export function readTar(bytes: Buffer, source = "the archive"): TarFile[] {
  const files: TarFile[] = [];
  for (let at = 0; at + BLOCK <= bytes.length;) {
    const header = bytes.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    if (readOctal(header, 148, 8) !== checksum(header))
      throw new TarFormatError(source, `bad header checksum at byte ${at}`);
    const prefix = readString(header, 345, 155);
    const base = readString(header, 0, 100);
    const name = prefix ? `${prefix}/${base}` : base;
    const size = readOctal(header, 124, 12);
    const type = String.fromCharCode(header[156] || 0x30);
    at += BLOCK;
    if (at + size > bytes.length) throw new TarFormatError(source, `entry ${name} runs past the end`);
    if (type === "0" || type === "7")
      files.push({ name, data: bytes.subarray(at, at + size), mtime: new Date(readOctal(header, 136, 12) * 1000) });
    else if (type !== "5")
      throw new TarFormatError(source, `entry ${name} is not a regular file or folder (type ${type})`);
    at += Math.ceil(size / BLOCK) * BLOCK;
  }
  return files;
}

/** Writes an archive's files under `dir`; a name that is absolute or climbs out of it is refused before anything is written. */
export function extractTar(bytes: Buffer, dir: string, source = "the archive"): string[] {
  const files = readTar(bytes, source);
  const targets = files.map((f) => {
    const rel = normalize(f.name.split("/").join(sep));
    if (isAbsolute(f.name) || rel === ".." || rel.startsWith(`..${sep}`))
      throw new TarFormatError(source, `entry ${f.name} would be written outside ${dir}`);
    return join(dir, rel);
  });
  files.forEach((f, i) => {
    mkdirSync(dirname(targets[i]), { recursive: true });
    writeFileSync(targets[i], f.data);
  });
  return files.map((f) => f.name);
}
