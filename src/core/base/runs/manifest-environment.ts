/**
 * How a run's manifest names its environment. Decision: the field `environment: {name, version}`
 * is written for every environment except the first one at version 1 (IMPLIED_ENVIRONMENT), and a
 * manifest without it is that one. So every run made before environments existed still resumes (its
 * fingerprint gained no field), new manifests of that environment match old ones field for field,
 * and a run of any other environment differs from it in `environment.name` (named by compare,
 * refused by resume and by ablate).
 */
import { FIRST_ENVIRONMENT } from "../first-environment";

/** Name and version: recorded in every run's manifest, part of the fingerprint. */
export interface EnvironmentId {
  name: string;
  version: string;
}

/** What a manifest without the field records: the first environment at its first version (runs from before environments existed). */
export const IMPLIED_ENVIRONMENT: EnvironmentId = FIRST_ENVIRONMENT;
const IMPLIED = IMPLIED_ENVIRONMENT;

/** The manifest field for an environment: `{}` for the implied one, else `{environment}`. */
export function environmentField(env: EnvironmentId): { environment?: EnvironmentId } {
  if (env.name === IMPLIED.name && env.version === IMPLIED.version) return {};
  return { environment: { name: env.name, version: env.version } };
}

/** The environment a manifest (eval, training, or an sft-data fingerprint) records. */
export function manifestEnvironment(manifest: unknown): EnvironmentId {
  if (typeof manifest !== "object" || manifest === null) return IMPLIED;
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
  return IMPLIED;
}

export function describeEnvironment(e: EnvironmentId): string {
  return `${e.name} v${e.version}`;
}
