/** HotpotQA's reply parser lives with its environment; re-exported here for existing importers. */
export { firstTagged, parseAction, type Action } from "../envs/hotpotqa/actions";
