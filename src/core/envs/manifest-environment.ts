/**
 * How a run's manifest names its environment. Decision: the field `environment: {name, version}`
 * is written for every environment except the implied one (catalog.ts IMPLIED_ENVIRONMENT: the
 * environment whose info declares it, at that version), and a manifest without it is that one. So
 * every run made before environments existed still resumes (its fingerprint gained no field), new
 * manifests of that environment match old ones field for field, and a run of any other environment
 * differs from it in `environment.name` (named by compare, refused by resume and by ablate).
 * Here in envs because only the catalog knows which environment that is; base reads the field
 * as recorded (base/runs/environment-id.ts).
 */
import { recordedEnvironment, type EnvironmentId } from "../base/runs/environment-id";
import { recordedRunEnvironment } from "../base/runs/run-files";
import { IMPLIED_ENVIRONMENT } from "./catalog";

export { describeEnvironment, type EnvironmentId } from "../base/runs/environment-id";
export { IMPLIED_ENVIRONMENT };

/** The manifest field for an environment: `{}` for the implied one, else `{environment}`. */
export function environmentField(env: EnvironmentId): { environment?: EnvironmentId } {
  if (env.name === IMPLIED_ENVIRONMENT.name && env.version === IMPLIED_ENVIRONMENT.version) return {};
  return { environment: { name: env.name, version: env.version } };
}

/** The environment a manifest (eval, training, or an sft-data fingerprint) records; one that records none is the implied one. */
export function manifestEnvironment(manifest: unknown): EnvironmentId {
  return recordedEnvironment(manifest) ?? IMPLIED_ENVIRONMENT;
}

/** The environment a run folder's manifest names (none, or no readable manifest: the implied one). */
export function runEnvironmentName(runDir: string): string {
  return (recordedRunEnvironment(runDir) ?? IMPLIED_ENVIRONMENT).name;
}
