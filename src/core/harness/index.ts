/** The agent harness: one episode loop shared by eval, SFT data collection and RL, for every environment. */
export type { Policy, Sample, SampleOptions, PolicyInfo, StopReason } from "./policy";
export { runEnvEpisode, type Episode, type EpisodeTurn, type EndReason, type LoopOptions } from "./episode";
export { loadSystemPrompt, defaultSystemPromptFile, promptSha256, type SystemPrompt } from "./prompts";
