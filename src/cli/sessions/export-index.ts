import { formatCount } from "../core/format.js";

/** Schema tag of `index.json` and of `export --json`. */
export const EXPORT_SCHEMA = "context-ledger.export.v1";

/** One exported output, as `index.json` lists it. */
export interface ExportedFile {
  handle: string;
  file: string;
  bytes: number;
  toolName: string | null;
  kind: string;
  sessionKey: string | null;
  createdAt: string;
  /** Where the handle was referenced: host transcripts, ledger state files, citing packs, the store's record. */
  referencedBy: string[];
}

/** One output that could not be exported. */
export interface ExportFailure {
  handle: string;
  /** `missing`: not in the store; `corrupt`: fails its hash; `failed`: could not be written. */
  problem: "missing" | "corrupt" | "failed";
  reason: string;
  referencedBy: string[];
}

/** `index.json`, and the body of `export --json`. */
export interface ExportIndex {
  schema: typeof EXPORT_SCHEMA;
  agentId: string;
  session: string | null;
  at: string;
  files: ExportedFile[];
  failed: ExportFailure[];
  /** Sources that exist but could not be read. */
  unreadable: { source: string; reason: string }[];
}

/** A table cell: pipes and line breaks would break the Markdown row. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/[\r\n]+/g, " ");
}

/** `INDEX.md` of an export: what a person reads to find the file behind a stub's handle. */
export function renderExportIndex(doc: ExportIndex): string {
  const rows = doc.files.map(
    (f) =>
      `| \`${f.handle}\` | ${cell(f.file)} | ${formatCount(f.bytes)} | ${cell(f.toolName ?? f.kind)} | ${cell(f.referencedBy.join("; "))} |`,
  );
  const lines = [
    `# context-ledger export: agent ${cell(doc.agentId)}${doc.session ? `, session ${cell(doc.session)}` : ""}`,
    "",
    `Exported ${doc.at}. A stub in a transcript names a handle (\`ledger:v1:sha256:<hex>\`); the file on its row holds`,
    "that output byte-exact: its SHA-256 is the hex after `sha256:` (`sha256sum FILE` shows it). These are the outputs",
    "as stored, not redacted: they may contain secrets.",
    "",
    "| handle | file | bytes | tool | referenced in |",
    "|---|---|---|---|---|",
    ...rows,
    "",
  ];
  if (doc.failed.length > 0)
    lines.push(
      "## Not exported",
      "",
      "| handle | problem | reason | referenced in |",
      "|---|---|---|---|",
      ...doc.failed.map(
        (f) => `| \`${f.handle}\` | ${f.problem} | ${cell(f.reason)} | ${cell(f.referencedBy.join("; "))} |`,
      ),
      "",
    );
  if (doc.unreadable.length > 0)
    lines.push(
      "## Sources that could not be read",
      "",
      "Outputs only these reference may be missing above.",
      "",
      ...doc.unreadable.map((u) => `- ${cell(u.source)} (${cell(u.reason)})`),
      "",
    );
  return lines.join("\n");
}
