/**
 * Fault injection for the local backend, so clients' retry and back-off paths can be exercised over
 * real HTTP. Draws come from a seeded generator: the same seed and request order give the same faults.
 */
import { Rng } from "./model/rng";

export interface FaultOptions {
  /** Added before every response (a slow network). */
  latencyMs?: number;
  /** Fraction of POST /asample answered 429 (the SDK's back-pressure signal), before any work. */
  sample429Rate?: number;
  /** Fraction of requests answered 503 before any work (safe to retry). */
  error5xxRate?: number;
  /** Fraction of requests whose connection is dropped *after* the work, so the response is lost (tests idempotent retries). */
  dropRate?: number;
  /** Extra time every queued operation takes before its future resolves (a slow service). */
  slowFutureMs?: number;
  /** Seed for the fault draws. */
  seed?: number;
}

/** Endpoints never faulted: the SDK's bootstrap and background chatter. */
const EXEMPT = new Set(["client/config", "client/dynamic_config", "telemetry", "session_heartbeat", "healthz"]);

export class FaultInjector {
  private readonly rng: Rng;
  constructor(readonly options: FaultOptions = {}) {
    this.rng = new Rng(options.seed ?? 1234);
  }

  private roll(rate: number | undefined, endpoint: string): boolean {
    if (!rate || rate <= 0 || EXEMPT.has(endpoint)) return false;
    return this.rng.next() < rate;
  }

  latencyMs(): number {
    return this.options.latencyMs ?? 0;
  }

  rejectWith(endpoint: string, method: string): 429 | 503 | undefined {
    if (method === "POST" && endpoint === "asample" && this.roll(this.options.sample429Rate, endpoint)) return 429;
    if (this.roll(this.options.error5xxRate, endpoint)) return 503;
    return undefined;
  }

  dropResponse(endpoint: string): boolean {
    return this.roll(this.options.dropRate, endpoint);
  }
}

/** Parses "--faults" style flags: e.g. latency=50,429=0.2,5xx=0.05,drop=0.05,slow=200,seed=3. */
export function parseFaultSpec(spec: string): FaultOptions {
  const out: FaultOptions = {};
  for (const part of spec.split(",").filter(Boolean)) {
    const [key, raw] = part.split("=");
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new Error(`fault "${part}": value must be a non-negative number`);
    const rate = () => {
      if (value > 1) throw new Error(`fault "${part}": a rate must be between 0 and 1`);
      return value;
    };
    switch (key) {
      case "latency":
        out.latencyMs = value;
        break;
      case "429":
        out.sample429Rate = rate();
        break;
      case "5xx":
        out.error5xxRate = rate();
        break;
      case "drop":
        out.dropRate = rate();
        break;
      case "slow":
        out.slowFutureMs = value;
        break;
      case "seed":
        out.seed = value;
        break;
      default:
        throw new Error(`unknown fault "${key}" (expected latency, 429, 5xx, drop, slow, seed)`);
    }
  }
  return out;
}
