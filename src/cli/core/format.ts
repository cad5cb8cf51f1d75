/** Renders rows as a left-aligned table (numbers right-aligned), two spaces between columns. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const numeric = header.map(
    (_, i) => rows.length > 0 && rows.every((r) => /^-?[\d,.]+( ?[KMGT]?i?B)?%?$|^-$/.test(r[i] ?? "")),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n") + "\n";
}

/** Bytes in binary units: `512 B`, `1.5 KiB`, `2.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "-";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** An integer with thousands separators, or `-` when absent. */
export function formatCount(n: number | null | undefined): string {
  return typeof n === "number" && Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-";
}

/** A handle shortened for tables: prefix and the first 12 hex digits. */
export function shortHandle(handle: string): string {
  return handle.length > 29 ? `${handle.slice(0, 29)}…` : handle;
}

/** `1 line`, `2 lines`, `1,024 artifacts`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${formatCount(n)} ${n === 1 ? word : many}`;
}
