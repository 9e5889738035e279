/**
 * Little-endian raw arrays as Tinker puts them in protobuf `bytes` fields (numpy `tobytes()` on
 * x86/ARM). DataView with an explicit endianness flag keeps this correct on any host.
 */

export function int32Bytes(values: readonly number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setInt32(i * 4, v, true));
  return out;
}

export function float32Bytes(values: readonly number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return out;
}

export function int64Bytes(values: readonly number[]): Uint8Array {
  const out = new Uint8Array(values.length * 8);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setBigInt64(i * 8, BigInt(Math.trunc(v)), true));
  return out;
}

function viewOf(bytes: Uint8Array, width: number, what: string): DataView {
  if (bytes.byteLength % width !== 0) {
    throw new Error(`${what}: ${bytes.byteLength} bytes is not a multiple of ${width}`);
  }
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function readInt32(bytes: Uint8Array): number[] {
  const view = viewOf(bytes, 4, "int32 array");
  const out = new Array<number>(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt32(i * 4, true);
  return out;
}

export function readFloat32(bytes: Uint8Array): number[] {
  const view = viewOf(bytes, 4, "float32 array");
  const out = new Array<number>(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** int64 values as JS numbers (token ids, offsets and shapes stay far below 2^53). */
export function readInt64(bytes: Uint8Array): number[] {
  const view = viewOf(bytes, 8, "int64 array");
  const out = new Array<number>(bytes.byteLength / 8);
  for (let i = 0; i < out.length; i++) out[i] = Number(view.getBigInt64(i * 8, true));
  return out;
}

/** bfloat16 is the high half of a float32: shift the 16 bits up and read as f32. */
export function readBfloat16(bytes: Uint8Array): number[] {
  const view = viewOf(bytes, 2, "bfloat16 array");
  const scratch = new DataView(new ArrayBuffer(4));
  const out = new Array<number>(bytes.byteLength / 2);
  for (let i = 0; i < out.length; i++) {
    scratch.setUint32(0, (view.getUint16(i * 2, true) << 16) >>> 0);
    out[i] = scratch.getFloat32(0);
  }
  return out;
}

export function hexToBytes(hex: string): Uint8Array {
  const clean = hex.replace(/\s+/g, "");
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}
