/** One line of a JSONL transcript. */
export type Entry = Record<string, unknown> & { id: string; parentId: string | null };

/** The entries as the host writes a JSONL transcript: one JSON line each, a newline after the last. */
export const jsonlOf = (lines: readonly Entry[]): string => `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;

/** A message of `role` with one text block. */
export const text = (role: string, t: string) => ({ role, content: [{ type: "text", text: t }] });

/**
 * A 2026.4.x file after paydown rewrites: a header, the original branch of `turns` turns with 100 KB tool outputs,
 * then the host's rewrite of it from the first turn's answer on (new ids, stubs), with a compaction and a label that
 * names an entry of the original branch.
 */
export function rewrittenSession(
  turns: number,
  opts: { inFlight?: boolean } = {},
): { lines: Entry[]; labelled: string } {
  const lines: Entry[] = [{ type: "session", id: "sess", parentId: null, version: 3 } as Entry];
  const turnEntries = (prefix: string, firstParent: string | null, output: (i: number) => string) => {
    let parent = firstParent;
    const out: Entry[] = [];
    for (let i = 0; i < turns; i++)
      for (const message of [
        text("user", `Turn ${i}: check`),
        { role: "toolResult", toolCallId: `c${i}`, content: [{ type: "text", text: output(i) }] },
        text("assistant", `Answer ${i}`),
      ]) {
        const id = `${prefix}${out.length}`;
        out.push({ type: "message", id, parentId: parent, message });
        parent = id;
      }
    return out;
  };
  const original = turnEntries("a", null, (i) => `row ${i} `.repeat(12_500));
  // The rewrite forks after the first user message (its parent is that entry, as the host's rewrite does).
  const rewritten = turnEntries("b", null, (i) => `[context-ledger artifact ledger:v1:sha256:${"0".repeat(64)}] ${i}`)
    .slice(1)
    .map((e, i) => (i === 0 ? { ...e, parentId: "a0" } : e));
  const leaf = rewritten.at(-1)!.id;
  const compaction = { type: "compaction", id: "k1", parentId: leaf, firstKeptEntryId: rewritten[6]!.id } as Entry;
  const label = { type: "label", id: "l1", parentId: "k1", targetId: "a4", label: "kept" } as Entry;
  lines.push(...original, ...rewritten, compaction, label);
  if (opts.inFlight) lines.push({ type: "message", id: "u-new", parentId: "l1", message: text("user", "Turn next") });
  return { lines, labelled: "a4" };
}
