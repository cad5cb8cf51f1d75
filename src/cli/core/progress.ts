/** A progress line for long operations. */
export interface Progress {
  /** Reports `done` of `total` (total 0 when unknown). */
  update(label: string, done: number, total: number): void;
  /** Clears the line. */
  end(): void;
}

/**
 * Progress on stderr when it is a terminal; silent when piped, so the output
 * stays machine-readable. Redraws at most every 100 ms.
 */
export function createProgress(stderr: NodeJS.WritableStream & { isTTY?: boolean }): Progress {
  if (!stderr.isTTY) return { update() {}, end() {} };
  let last = 0;
  let shown = false;
  return {
    update(label, done, total) {
      const now = Date.now();
      if (now - last < 100 && done !== total) return;
      last = now;
      shown = true;
      const pct = total > 0 ? ` ${Math.floor((done / total) * 100)}%` : "";
      stderr.write(`\r\x1b[2K${label} ${done}${total > 0 ? `/${total}` : ""}${pct}`);
    },
    end() {
      if (shown) stderr.write("\r\x1b[2K");
      shown = false;
    },
  };
}
