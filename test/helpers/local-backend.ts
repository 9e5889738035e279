/** The server's start-or-reuse, for tests that run core steps with `--backend local` (the CLI passes the same). */
export { connectOrStartLocalBackend as startLocalBackend } from "../../src/server/reuse";
