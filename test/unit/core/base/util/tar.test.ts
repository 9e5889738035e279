/**
 * The checkpoint archive format (util/tar.ts): what it writes is a tar the system's `tar` reads byte
 * for byte, what the system's `tar` writes (ustar) it reads, and extraction refuses, before writing
 * anything, a torn or forged archive and any entry that would land outside the target folder.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { extractTar, readTar, TarFormatError, writeTar, type TarFile } from "../../../../../src/core/base/util/tar";

/** Sizes around the 512-byte block, so padding and the end-of-archive blocks are exercised. */
const FILES: TarFile[] = [0, 1, 511, 512, 513, 1500].map((size, i) => ({
  name: i % 2 ? `weights/part-${i}.bin` : `meta-${i}.json`,
  data: Buffer.from(Array.from({ length: size }, (_, j) => (j * 31 + i) % 256)),
  mtime: new Date(1_700_000_000_000 + i * 1000),
}));

describe("core/base/util/tar", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-tar-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes an archive the system's tar lists and extracts to the same bytes and times; reads its own back", () => {
    const archive = join(dir, "a.tar");
    writeFileSync(archive, writeTar(FILES));
    const listed = execFileSync("tar", ["-tf", archive], { encoding: "utf8" }).trim().split("\n");
    assert.deepEqual(
      listed,
      FILES.map((f) => f.name),
    );
    const out = join(dir, "system");
    mkdirSync(out);
    execFileSync("tar", ["-xf", archive, "-C", out]);
    for (const f of FILES) assert.ok(readFileSync(join(out, f.name)).equals(Buffer.from(f.data)), f.name);
    const back = readTar(readFileSync(archive));
    assert.deepEqual(
      back.map((f) => [f.name, Buffer.from(f.data).toString("hex"), f.mtime?.getTime()]),
      FILES.map((f) => [f.name, Buffer.from(f.data).toString("hex"), f.mtime?.getTime()]),
    );
    assert.equal(readFileSync(archive).length % 512, 0);
  });

  it("reads a ustar archive the system's tar wrote, folders included", () => {
    const src = join(dir, "src");
    mkdirSync(join(src, "weights"), { recursive: true });
    writeFileSync(join(src, "weights", "a.bin"), Buffer.alloc(700, 7));
    writeFileSync(join(src, "config.json"), "{}");
    const archive = join(dir, "b.tar");
    execFileSync("tar", ["--format=ustar", "-cf", archive, "-C", src, "weights", "config.json"]);
    const out = join(dir, "out");
    assert.deepEqual(extractTar(readFileSync(archive), out), ["weights/a.bin", "config.json"]);
    assert.ok(readFileSync(join(out, "weights", "a.bin")).equals(Buffer.alloc(700, 7)));
    assert.equal(readFileSync(join(out, "config.json"), "utf8"), "{}");
  });

  for (const name of ["../evil.bin", "a/../../evil.bin", "..", "/tmp/evil.bin"])
    it(`refuses an entry named ${JSON.stringify(name)} before writing anything`, () => {
      const archive = writeTar([
        { name: "ok.bin", data: Buffer.from("fine") },
        { name, data: Buffer.from("x") },
      ]);
      const out = join(dir, "out");
      assert.throws(
        () => extractTar(archive, out, "download.tar"),
        (e: unknown) =>
          e instanceof TarFormatError &&
          e.message ===
            `download.tar is not a usable checkpoint archive: entry ${name} would be written outside ${out}`,
      );
      assert.deepEqual(readdirSync(dir), [], "nothing written, not even the first (harmless) entry");
    });

  it("refuses a header whose checksum does not add up, naming where", () => {
    const archive = writeTar(FILES.slice(0, 3));
    archive[1536 + 1] ^= 0x01; // the third header's name: headers at 0 (a 0-byte file) and 512 (a 1-byte one, data at 1024)
    assert.throws(
      () => readTar(archive, "x.tar"),
      (e: unknown) =>
        e instanceof TarFormatError &&
        e.message === "x.tar is not a usable checkpoint archive: bad header checksum at byte 1536",
    );
  });

  it("refuses an archive cut inside an entry's data", () => {
    const archive = writeTar([FILES[5]]);
    assert.throws(
      () => readTar(archive.subarray(0, 512 + 1000)),
      (e: unknown) =>
        e instanceof TarFormatError &&
        e.message === `the archive is not a usable checkpoint archive: entry ${FILES[5].name} runs past the end`,
    );
  });

  it("refuses links: only regular files and folders are accepted", () => {
    const src = join(dir, "src");
    mkdirSync(src);
    writeFileSync(join(src, "real.bin"), "r");
    symlinkSync("/etc/passwd", join(src, "link.bin"));
    const archive = join(dir, "c.tar");
    execFileSync("tar", ["--format=ustar", "-cf", archive, "-C", src, "link.bin"]);
    assert.throws(
      () => readTar(readFileSync(archive)),
      (e: unknown) =>
        e instanceof TarFormatError &&
        e.message ===
          "the archive is not a usable checkpoint archive: entry link.bin is not a regular file or folder (type 2)",
    );
  });

  it("will not write a name that does not fit the header", () => {
    assert.throws(() => writeTar([{ name: "n".repeat(101), data: Buffer.alloc(1) }]), /longer than 100 bytes/);
    assert.equal(readTar(writeTar([{ name: "n".repeat(100), data: Buffer.alloc(1) }]))[0].name, "n".repeat(100));
  });
});
