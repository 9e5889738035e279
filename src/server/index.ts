/** The local Tinker-compatible backend: start it with startLocalBackend({ dir, port?, seed?, faults? }). */
export { startLocalBackend, clientConfig, type LocalBackendOptions, type RunningLocalBackend } from "./http-server";
export { parseFaultSpec, type FaultOptions } from "./faults";
export { STAND_IN_NOTICE } from "./backend";
export {
  connectOrStartLocalBackend,
  isLocalBackend,
  localBackendAt,
  reuseLocalBackend,
  type LocalBackendHandle,
} from "./reuse";
export { localStoreHasRun, localStoreId } from "./checkpoint-store";
