// Mutation testing (StrykerJS): `npm run test:mutation [-- FILES]` (scripts/mutation/run.mjs) sets `mutate`
// and `mochaOptions.spec` per run; everything else is here. Why each choice:
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  // The unit tests are mocha tests written in TypeScript, run through tsx as `npm run test:unit` runs them.
  // tsx is registered in the test runner's process (not as mocha's `require`), so the tests' own child
  // processes (`node --import tsx …`) find it the same way.
  testRunner: "mocha",
  testRunnerNodeArgs: ["--import", "tsx"],
  // No .mocharc: the spec list comes from run.mjs. Stryker runs mocha without its per-test timeout (its own
  // timeout below applies per mutant).
  // Timing tests are left out: instrumented code runs several times slower (the bootstrap's "< 100 ms of
  // CPU" took 907 ms), so they fail without a mutant, and a mutant cannot be judged by them.
  mochaOptions: {
    spec: [],
    "no-config": true,
    "no-package": true,
    "no-opts": true,
    grep: "/^(?!.*(of CPU|within \\d+ ms|printed against \\d+ ms))/",
  },
  // One dry run records which test reaches which mutant; each mutant then runs only those tests
  // (measured on run-folder.ts: a mutant costs its few tests, not the file's whole suite).
  coverageAnalysis: "perTest",
  // A mutant that does not compile is not a test's failure: the TypeScript checker drops it first
  // (tsx strips types, so without it such mutants would count as killed or survived by accident).
  checkers: ["typescript"],
  tsconfigFile: "tsconfig.json",
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  // The machine is shared (2 cores): one test runner and one checker at a time.
  concurrency: 1,
  // Reruns reuse earlier results for unchanged mutants and tests (run.mjs keeps one file per source).
  incremental: true,
  incrementalFile: ".cache/stryker/incremental.json",
  // Under .cache/ (git-ignored); a mutant-run that takes this much longer than the dry run is a timeout
  // (an endless loop), which counts as detected.
  tempDirName: ".cache/stryker/tmp",
  timeoutMS: 10_000,
  timeoutFactor: 2,
  cleanTempDir: "always",
  // The sandbox copy leaves out what no unit test reads (the SDK venv holds links Stryker cannot copy).
  ignorePatterns: [
    "/.cache/sdk-venv",
    "/docs",
    "/images",
    "/media",
    "/vscode-host",
    "/bench/.venv",
    "/bench/.work",
    "/dist",
    "/out",
  ],
  // run.mjs prints the per-module table from the JSON report; "progress" shows where a long run is.
  reporters: ["json", "progress"],
  jsonReporter: { fileName: ".cache/stryker/mutation.json" },
  // Unit-test-friendly defaults: no HTML, and a failing score is reported, not fatal.
  thresholds: { high: 85, low: 70, break: null },
};
