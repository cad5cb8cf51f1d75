/**
 * The filter the full-exec wrapper pipes a command's output through (`node tee-filter.js FILE CAP`):
 * every byte goes on to stdout unchanged (the host reads what it would have read), and the first CAP
 * bytes also into FILE, a 0600 file the plugin created. At the end of the stream it writes
 * `FILE.json` with the byte counts, so the capture knows the stream ended and whether the cap bit.
 *
 * It runs in a session of its own, outside the gateway and out of reach of the command's group signals
 * (see wrap-command.ts), with no listener of any kind: no imports but Node's own, so Node 24 runs it from
 * the TypeScript source too (type stripping) in the unit tests.
 */
import { closeSync, constants, openSync, renameSync, writeSync } from "node:fs";

/** What the filter writes into `FILE.json` when the stream has ended. */
export interface TeeTrailer {
  v: 1;
  /** Bytes the command wrote. */
  bytes: number;
  /** Bytes kept in the file (at most the cap). */
  kept: number;
  /** False when the file could not be opened or written: nothing was kept. */
  fileOk: boolean;
}

function openTeeFile(file: string): number | undefined {
  try {
    // O_NOFOLLOW: the file the plugin made, never a link swapped in for it.
    return openSync(file, constants.O_WRONLY | constants.O_TRUNC | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
}

function writeAll(fd: number, chunk: Uint8Array): void {
  for (let off = 0; off < chunk.length;) off += writeSync(fd, chunk, off, chunk.length - off);
}

function runTeeFilter(file: string, cap: number): void {
  let fd = openTeeFile(file);
  let fileOk = fd !== undefined;
  let bytes = 0;
  let kept = 0;
  const finish = (): void => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
    const trailer: TeeTrailer = { v: 1, bytes, kept, fileOk };
    try {
      const out = openSync(`${file}.json.tmp`, "w", 0o600);
      try {
        writeAll(out, Buffer.from(JSON.stringify(trailer)));
      } finally {
        closeSync(out);
      }
      renameSync(`${file}.json.tmp`, `${file}.json`);
    } catch {
      // No trailer: the capture treats the output as unfinished and keeps the host's copy.
    }
  };
  // A host that stopped reading (it killed the call, or closed its end) does not end the copy: the file
  // still gets every byte up to the end of the stream, and the trailer.
  let forward = true;
  process.stdout.on("error", () => {
    forward = false;
    process.stdin.resume();
  });
  // The filter is in no group the command or the host signals; one sent to it by pid still does not end
  // the copy: the end of the stream does, and the trailer follows it.
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGQUIT", "SIGALRM"] as const)
    process.on(signal, () => undefined);
  process.stdin.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (fd !== undefined && kept < cap) {
      const part = chunk.length <= cap - kept ? chunk : chunk.subarray(0, cap - kept);
      try {
        writeAll(fd, part);
        kept += part.length;
      } catch {
        fileOk = false;
        closeSync(fd);
        fd = undefined;
      }
    }
    if (forward && !process.stdout.write(chunk)) {
      process.stdin.pause();
      process.stdout.once("drain", () => process.stdin.resume());
    }
  });
  process.stdin.on("end", () => (forward ? process.stdout.write("", finish) : finish()));
}

const [file, capText] = process.argv.slice(2);
const cap = Number(capText);
if (file && Number.isSafeInteger(cap) && cap >= 0) runTeeFilter(file, cap);
else process.stdin.pipe(process.stdout);
