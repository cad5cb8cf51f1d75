#!/usr/bin/env node
import { exitQuietlyOnEpipe } from "./core/cli-io.js";
import { runCli } from "./run-cli.js";

exitQuietlyOnEpipe(process.stdout);
exitQuietlyOnEpipe(process.stderr);
const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
process.exitCode = code;
