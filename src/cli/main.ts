#!/usr/bin/env node
import { runCli } from "./run-cli.js";

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
process.exitCode = code;
