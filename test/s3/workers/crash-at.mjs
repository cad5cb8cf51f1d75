// Runs one CLI command that SIGKILLs itself at a chosen step: every file-system mutation and every S3 request (before
// it is sent, and once it answered) is a numbered step, written to `trace` before it runs. `crashAt: null` never
// crashes: the trace then lists every step of the command, for the parent to choose from. A step is chosen by what it
// does, not by its number (uploads answer in the background, so numbers shift between runs): `{ match, nth, after }`
// crashes `after` steps past the `nth` step whose text matches the regular expression `match`.
import fs, { openSync, writeSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { S3Client } from "@aws-sdk/client-s3";

const { env, argv, crashAt, trace } = JSON.parse(process.argv[2]);
// Written through a descriptor opened before any patch: the trace is not a step of its own.
const traceFd = openSync(trace, "a");
let step = 0;
const match = crashAt ? new RegExp(crashAt.match) : undefined;
let matched = 0;
let countdown = -1;
const point = (what) => {
  step++;
  writeSync(traceFd, `${step} ${what}\n`);
  if (countdown < 0 && match?.test(what) && ++matched === crashAt.nth) countdown = crashAt.after ?? 0;
  if (countdown === 0) process.kill(process.pid, "SIGKILL");
  if (countdown > 0) countdown--;
};
const named = (arg) => (typeof arg === "string" ? arg : typeof arg === "object" && arg?.path ? arg.path : "");

// A file handle's prototype, taken before any patch.
const probe = await fs.promises.open(`${trace}.probe`, "a");
const handleProto = Object.getPrototypeOf(probe);
await probe.close();
await fs.promises.rm(`${trace}.probe`);

const ASYNC = ["writeFile", "appendFile", "rename", "link", "rm", "unlink", "mkdir", "open", "copyFile", "truncate"];
for (const name of ASYNC) {
  const original = fs.promises[name];
  fs.promises[name] = function (...args) {
    point(`fs.${name} ${named(args[0])}`);
    return original.apply(this, args);
  };
}
const SYNC = [
  "writeFileSync",
  "renameSync",
  "linkSync",
  "rmSync",
  "unlinkSync",
  "mkdirSync",
  "openSync",
  "copyFileSync",
];
for (const name of SYNC) {
  const original = fs[name];
  fs[name] = function (...args) {
    point(`fs.${name} ${named(args[0])}`);
    return original.apply(this, args);
  };
}
// Writes, flushes and closes through a file handle are steps too.
for (const name of ["write", "writeFile", "sync", "datasync", "close"]) {
  const original = handleProto[name];
  handleProto[name] = function (...args) {
    point(`handle.${name}`);
    return original.apply(this, args);
  };
}
syncBuiltinESMExports();

const send = S3Client.prototype.send;
S3Client.prototype.send = async function (command, ...rest) {
  const what = `s3.${command.constructor.name.replace(/Command$/, "")} ${command.input?.Key ?? ""}`;
  point(what);
  const answer = await send.call(this, command, ...rest);
  point(`${what} answered`);
  return answer;
};

const { runCli } = await import("../../../src/cli/run-cli.ts");
const quiet = { write: () => true };
process.exitCode = await runCli(argv, { stdout: quiet, stderr: process.stderr, stdin: process.stdin, env });
