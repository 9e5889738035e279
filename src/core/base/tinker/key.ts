/**
 * Where the Tinker API key comes from and what it must look like. The key is held in memory only:
 * never logged, never written to disk, and redacted from error text (errors.ts).
 */
import { TinkerKeyError } from "./errors";

/** The key passed in, else TINKER_API_KEY; checked before any request (tml-… key or eyJ… JWT). */
export function resolveApiKey(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const key = (explicit ?? env.TINKER_API_KEY ?? "").trim();
  if (!key) throw new TinkerKeyError("is not set");
  if (!key.startsWith("tml-") && !key.startsWith("eyJ")) {
    // Say what is wrong without echoing the value.
    throw new TinkerKeyError(`has an unexpected form (it should start with "tml-"; got ${key.length} characters)`);
  }
  return key;
}

/** The payload of a JWT (no signature check: the client only reads `exp`, `sub`, `email`). */
export function jwtPayload(jwt: string): { exp?: number; sub?: string; email?: string } {
  const part = jwt.split(".")[1];
  if (!part) return {};
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as {
      exp?: number;
      sub?: string;
      email?: string;
    };
  } catch {
    return {};
  }
}
