/**
 * Tinker's wire layer, shared by the client (src/core/base/tinker) and the local backend (src/server):
 * body types with the exact field names, the protobuf codec, little-endian array helpers and the
 * Datum builders. Exports here are kept stable.
 */
export * from "./types";
export * from "./bytes";
export * from "./builders";
export * from "./codec";
export { TINKER_PROTO, tinkerProtoRoot, protoType, DTYPE, STOP_REASON } from "./schema";
