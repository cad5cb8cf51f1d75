import { PassThrough, Readable } from "node:stream";
import type { CliIo } from "../../src/cli/core/cli-io.js";

/** Captured streams for `runCli` in tests; stdin is empty unless given. */
export function createCliIo(env: NodeJS.ProcessEnv = {}, stdin = "") {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on("data", (d: Buffer) => out.push(d.toString("utf8")));
  stderr.on("data", (d: Buffer) => err.push(d.toString("utf8")));
  const io: CliIo = { stdout, stderr, stdin: Readable.from([stdin]), env };
  return { io, stdout: () => out.join(""), stderr: () => err.join("") };
}
