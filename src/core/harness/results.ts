/** HotpotQA's result blocks live with its environment; re-exported here for existing importers. */
export { EMPTY_QUERY, LAST_SEARCH, NO_RESULTS, formatResults, resultBlock } from "../envs/hotpotqa/results";
