/**
 * An environment as run files record it: name and version. Which environment a file that records
 * none means is the environments' business (envs/manifest-environment.ts: the one whose info
 * declares it), so base only reads what is recorded and leaves an absent field absent.
 */

/** Name and version: recorded in every run's manifest, part of the fingerprint. */
export interface EnvironmentId {
  name: string;
  version: string;
}

/**
 * The environment a manifest (eval, training, or an sft-data fingerprint) records in its
 * `environment` field; undefined when it records none (what that means: envs/manifest-environment.ts).
 */
export function recordedEnvironment(manifest: unknown): EnvironmentId | undefined {
  if (typeof manifest !== "object" || manifest === null) return undefined;
  const m = manifest as { environment?: unknown; fingerprint?: { environment?: unknown } };
  const e = m.environment ?? m.fingerprint?.environment;
  if (
    typeof e === "object" &&
    e !== null &&
    typeof (e as EnvironmentId).name === "string" &&
    typeof (e as EnvironmentId).version === "string"
  ) {
    return { name: (e as EnvironmentId).name, version: (e as EnvironmentId).version };
  }
  return undefined;
}

export function describeEnvironment(e: EnvironmentId): string {
  return `${e.name} v${e.version}`;
}
