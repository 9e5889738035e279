/**
 * HotpotQA's real data for the paid path (`agent-lab pipeline --backend tinker`, its `--rehearse`):
 * the distractor set from the Hugging Face hub, or local files given as --train/--dev, prepared into
 * the recipe's splits and the one-paragraph-per-title corpus, as `agent-lab prepare` does.
 */
import type { RealDataSource, RecipeData, SplitSizes } from "../../harness/offline-world";
import { RECIPE_SPLIT_SIZES, type PrepareInput } from "./prepare";
import { prepareLines } from "./world-files";

type HubFiles = { train: string[]; dev: string[]; description: string };

/** The hub's files, downloaded once per process: the world stage fetches them, prepare reads them. */
let downloaded: Promise<HubFiles> | undefined;
async function hubFiles(log: (line: string) => void): Promise<HubFiles> {
  downloaded ??= import("./hub").then(({ downloadHotpotQA }) => downloadHotpotQA({ log }));
  try {
    return await downloaded;
  } catch (e) {
    // A failed download is tried again by the next call (a rerun), not remembered.
    downloaded = undefined;
    throw e;
  }
}

const filesLine = (d: { train: string[]; dev: string[] }) => `train ${d.train.join(", ")}; dev ${d.dev.join(", ")}`;

export const RECIPE_DATA: RecipeData = Object.freeze<RecipeData>({
  splits: RECIPE_SPLIT_SIZES,
  describe: (d: RealDataSource) =>
    d.source === "files"
      ? `HotpotQA records from local files (--train ${d.train.length} file${d.train.length === 1 ? "" : "s"}, --dev ${d.dev.length})`
      : "download HotpotQA (distractor) from the Hugging Face hub",
  outputs: (d: RealDataSource) => (d.source === "files" ? ["(read in place)"] : ["(hub cache)"]),
  reads: (d: RealDataSource) => (d.source === "files" ? [...d.train, ...d.dev] : ["(hub cache)"]),
  fetch: async (d: RealDataSource, log: (line: string) => void) => {
    if (d.source === "files") return [`HotpotQA records from local files: ${filesLine(d)}`];
    await hubFiles(log);
    return [];
  },
  prepareWhat: (splits: SplitSizes) =>
    `splits (test ${splits.test}, val ${splits.val}, train) and the one-paragraph-per-title corpus`,
  prepare: async (dataDir: string, d: RealDataSource, splits: SplitSizes | undefined, log: (line: string) => void) => {
    let input: PrepareInput;
    if (d.source === "files") {
      // The same reader and source line as `agent-lab prepare --train … --dev …`.
      input = { trainFiles: d.train, devFiles: d.dev, source: `local files: ${filesLine(d)}` };
    } else {
      const hub = await hubFiles(log);
      input = { trainFiles: hub.train, devFiles: hub.dev, source: hub.description };
    }
    return prepareLines(dataDir, input, log, splits);
  },
  filesWhat: "HotpotQA records: JSON list, JSONL or .parquet",
});
