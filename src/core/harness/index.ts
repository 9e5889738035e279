/** The agent harness: one episode function shared by eval, SFT data collection and RL. */
export type { Policy, Sample, SampleOptions, PolicyInfo, StopReason } from "./policy";
export { runEpisode, type Episode, type EpisodeOptions, type EpisodeTurn, type EndReason } from "./episode";
export { parseAction, firstTagged, type Action } from "./actions";
export { formatResults, resultBlock, NO_RESULTS, EMPTY_QUERY, LAST_SEARCH } from "./results";
export { loadSystemPrompt, defaultSystemPromptFile, promptSha256, type SystemPrompt } from "./prompts";
