/** The repository's root, for tests that read its files (examples, README, schema, src) wherever the test lives. */
import { resolve } from "node:path";

export const REPO = resolve(__dirname, "..", "..");
