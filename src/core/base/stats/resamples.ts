/** Bootstrap resamples of every paired comparison (ablate, Compare, the pipeline's report): pure, so the step specs import it. */
export const DEFAULT_RESAMPLES = 10_000;
