/** Where candidate tasks come from: the contract lives below steps (harness/tasks/generator.ts), so environments' folders declare their own. */
export {
  drawSeed,
  type CandidateDraft,
  type GeneratedCandidate,
  type TaskGenerator,
} from "../../../harness/tasks/generator";
