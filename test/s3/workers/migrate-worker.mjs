// A migration the parent SIGKILLs part-way: runs `artifact migrate --to s3` as the CLI does, in its own process.
import { runArtifactCommand } from "../../../src/cli/artifacts/artifact.ts";

const { env } = JSON.parse(process.argv[2]);
const quiet = { write: () => true };
process.exitCode = await runArtifactCommand(["migrate", "--to", "s3"], {
  stdout: quiet,
  stderr: process.stderr,
  stdin: process.stdin,
  env,
});
