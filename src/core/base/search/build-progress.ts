/**
 * The one line a streaming index build's progress reads as, for a terminal (`agent-lab index`) and
 * for the benchmark's log alike.
 */
import type { BuildProgress } from "./build-index";

/** "chunk 3/21 · 2,500,000 paragraphs · 41,200/s · ETA 6 min · work 3.1 GiB" or "merge 45% · … ". */
export function progressLine(p: BuildProgress): string {
  const eta = p.etaSeconds === undefined ? "" : ` · ETA ${duration(p.etaSeconds)}`;
  const work = ` · work ${mib(p.workBytes)}`;
  if (p.phase === "merge") {
    const pct = p.postings > 0 ? Math.floor((100 * p.postingsMerged) / p.postings) : 100;
    return `merge ${pct}% of ${p.postings.toLocaleString("en-US")} postings · ${Math.round(p.perSecond).toLocaleString("en-US")}/s${eta}${work}`;
  }
  return (
    `chunk ${p.chunk}/${p.chunks} · ${p.documents.toLocaleString("en-US")} paragraphs · ` +
    `${Math.round(p.perSecond).toLocaleString("en-US")}/s${eta}${work}`
  );
}

export function mib(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GiB` : `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
