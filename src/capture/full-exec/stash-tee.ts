import { isUtf8 } from "node:buffer";
import { promises as fsp } from "node:fs";
import { openSourceFile, readFileChunks, type ArtifactStore, type ArtifactOrigin } from "../../artifacts/index.js";
import { readTeeState, removeTeeFile } from "./tee-files.js";

/** What a tee file gave the store. */
export interface TeeCapture {
  handle: string;
  /** Chars (UTF-16 code units, as the host counts its text) and lines of what was stored. */
  chars: number;
  lines: number;
  bytes: number;
  /** Set when the store does not hold the whole output: which part, how much, why. */
  partial?: string;
  /** Set when the output is not valid UTF-8 text (stored as bytes all the same). */
  binary?: string;
}

/** Options of {@link stashTeeOutput}. */
export interface StashTeeOptions {
  store: ArtifactStore;
  origin: ArtifactOrigin;
  /** True when text of this many chars (read only when small) is worth a handle. */
  oversized: (text: string) => boolean;
  /** Bytes above which an output is worth a handle without reading it (4 bytes a char at most). */
  oversizedBytes: number;
}

interface TextFigures {
  chars: number;
  lines: number;
  nul: boolean;
  invalidUtf8: boolean;
}

/** Bytes a UTF-8 sequence starting with `lead` takes (1 for a stray continuation byte). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  if (lead >= 0xc0) return 2;
  return 1;
}

/** Bytes read from a tee file at a time. */
const READ_BYTES = 1 << 20;

/**
 * Chars, lines and binary signs of a byte stream, fed piece by piece and counted on the bytes (no string is
 * made: a 20 MB output costs no more memory than one piece). Chars are UTF-16 code units, as the host counts
 * text: one per sequence, two for a 4-byte one.
 */
function createTextScan(): { push(chunk: Buffer): void; finish(): TextFigures } {
  let chars = 0;
  let newlines = 0;
  let last = -1;
  let nul = false;
  let invalidUtf8 = false;
  let carry: Buffer = Buffer.alloc(0);
  return {
    push(chunk) {
      const buf = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      // A sequence cut at the piece's end waits for the next piece.
      let cut = buf.length;
      for (let i = buf.length - 1; i >= Math.max(0, buf.length - 4); i--) {
        const b = buf[i] as number;
        if ((b & 0xc0) === 0x80) continue;
        if (i + sequenceLength(b) > buf.length) cut = i;
        break;
      }
      const whole = buf.subarray(0, cut);
      carry = Buffer.from(buf.subarray(cut));
      if (!invalidUtf8 && !isUtf8(whole)) invalidUtf8 = true;
      if (!nul && whole.includes(0)) nul = true;
      for (let i = 0; i < whole.length; i++) {
        const b = whole[i] as number;
        if (b === 10) newlines++;
        if ((b & 0xc0) !== 0x80) chars += b >= 0xf0 ? 2 : 1;
      }
      if (whole.length > 0) last = whole[whole.length - 1] as number;
    },
    finish() {
      if (carry.length > 0) {
        invalidUtf8 = true;
        chars += carry.length;
        last = carry[carry.length - 1] as number;
      }
      // Lines as countLines counts them: a final newline ends the last line, it does not start one.
      const lines = chars === 0 ? 0 : newlines + (last === 10 ? 0 : 1);
      return { chars, lines, nul, invalidUtf8 };
    },
  };
}

/** The file's pieces, each also fed to `scan`: the store and the count read the file once between them. */
async function* scanned(source: fsp.FileHandle, scan: { push(chunk: Buffer): void }): AsyncGenerator<Buffer> {
  for await (const chunk of readFileChunks(source, READ_BYTES)) {
    scan.push(chunk);
    yield chunk;
  }
}

const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Stores the output a wrapped `exec` call wrote into its tee file, streamed from disk (the output is
 * never held in memory), then removes the file. Undefined when there is nothing worth a handle, the
 * command had not ended when its call returned (sent to the background, or stopped), or the file
 * cannot be trusted; the caller then keeps what the host handed over. Throws only what the store
 * throws (`store_full`).
 */
export async function stashTeeOutput(file: string, options: StashTeeOptions): Promise<TeeCapture | undefined> {
  try {
    const state = await readTeeState(file);
    // A command still running (sent to the background) or stopped: the host's own copy stands.
    if (state.kind !== "ended") return undefined;
    if (state.kept <= options.oversizedBytes && !options.oversized(await fsp.readFile(file, "utf8"))) return undefined;
    // Opened as stashFile opens a file: regular, not through a link.
    const source = await openSourceFile(file);
    const scan = createTextScan();
    let stored: Awaited<ReturnType<ArtifactStore["stashStream"]>>;
    try {
      stored = await options.store.stashStream(scanned(source, scan), { kind: "tool-output", origin: options.origin });
    } finally {
      await source.close();
    }
    const { handle, meta } = stored;
    const figures = scan.finish();
    const partial =
      state.kept < state.bytes
        ? `the first ${mib(state.kept)} of ${mib(state.bytes)} (the capture cap, offload.maxCaptureBytes)`
        : undefined;
    const binary = figures.nul ? "contains NUL bytes" : figures.invalidUtf8 ? "not valid UTF-8" : undefined;
    return {
      handle,
      chars: figures.chars,
      lines: figures.lines,
      bytes: meta.bytes,
      ...(partial ? { partial } : {}),
      ...(binary ? { binary } : {}),
    };
  } finally {
    await removeTeeFile(file);
  }
}
