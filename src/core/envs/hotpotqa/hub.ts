/**
 * HotpotQA's parquet files from the Hugging Face hub: the dataset its info declares
 * (`prepareSources.hub`), its train and validation splits, through the project's hub download
 * (base/data/hub.ts: cache, progress, resume, sha256 check).
 */
import { downloadHubFile, hubSourceDescription, listHubSplitFiles, type HubOptions } from "../../base/data/hub";
import { HOTPOTQA_INFO } from "./info";

/** The repository and config prepare downloads (declared once, in info.ts). */
export const HOTPOT_REPO: string = HOTPOTQA_INFO.prepareSources!.hub.repo;
export const HOTPOT_CONFIG: string = HOTPOTQA_INFO.prepareSources!.hub.config;

/** Lists and downloads the train and validation files; returns their local paths in order. */
export async function downloadHotpotQA(
  opts: HubOptions = {},
): Promise<{ train: string[]; dev: string[]; description: string }> {
  const hub = { ...opts, repo: opts.repo ?? HOTPOT_REPO, config: opts.config ?? HOTPOT_CONFIG };
  const files = await listHubSplitFiles(["train", "validation"], hub);
  const train: string[] = [];
  const dev: string[] = [];
  for (const f of files.train) train.push(await downloadHubFile(f, hub));
  for (const f of files.validation) dev.push(await downloadHubFile(f, hub));
  return { train, dev, description: hubSourceDescription(hub) };
}
