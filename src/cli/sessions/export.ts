import path from "node:path";
import { parseHandle, type ArtifactMeta } from "../../artifacts/index.js";
import { errorMessage, isLedgerError } from "../../errors.js";
import { COMMON_OPTIONS, stringFlag } from "../core/args.js";
import { runCommand } from "../core/command.js";
import { assertNamesWritable, prepareExportDir, writeTextFile, writeVerifiedFile } from "./export-files.js";
import {
  EXPORT_SCHEMA,
  renderExportIndex,
  type ExportedFile,
  type ExportFailure,
  type ExportIndex,
} from "./export-index.js";
import { CliFailure, EXIT } from "../core/cli-failure.js";
import { formatBytes, plural } from "../core/format.js";
import { progName, writeJson, type CliIo } from "../core/cli-io.js";
import { operatorContextOf } from "../core/operator-context.js";
import { findSessionReferences } from "./session-references.js";
import { openAgentStore } from "../core/agent-store.js";

export { EXPORT_SCHEMA, type ExportedFile, type ExportFailure, type ExportIndex } from "./export-index.js";

/** The one line every export prints on stderr: the files are not redacted. */
export const EXPORT_SECRETS_WARNING =
  "warning: the exported files are the outputs exactly as stored, not redacted: they may contain secrets";

const SPEC = {
  ...COMMON_OPTIONS,
  session: { type: "string" },
  out: { type: "string" },
  force: { type: "boolean" },
} as const;
const USAGE = `Usage: {prog} export --session KEY --out DIR [--agent ID] [--force] [--json]
       {prog} export --out DIR [--agent ID] [--force] [--json]     (every session of the agent)
The way out: writes every offloaded output the session's host transcript (JSONL or 2026.9.x SQLite) or the
ledger's state of it references, checkpoint packs and what they cite included, as plain files
DIR/<first 16 hex>-<tool or kind>.txt, byte-exact (checked against the handle when read and again after
writing), with DIR/index.json and DIR/INDEX.md: handle, file, bytes, tool, where it was referenced. Run it
before disabling or uninstalling context-ledger. The files are not redacted (they may contain secrets): DIR
is 0700, every file 0600. An existing non-empty DIR is refused unless --force (files of the same name are
replaced, others left alone); a symlink in DIR is never written through.
Exit codes: 0 ok, 1 usage error, 2 nothing to export, 3 an output missing or corrupt in the store (the rest
is written), 5 a source could not be read (what it references may be missing from the export).
`;

/** `context-ledger export`: the off-ramp, a session's offloaded outputs as plain files with an index. */
export async function runExportCommand(argv: string[], io: CliIo): Promise<number> {
  return runCommand(argv, io, { name: "export", options: SPEC, usage: USAGE }, async (args, json) => {
    const prog = progName(io);
    const out = stringFlag(args, "out");
    if (out === undefined || args.positionals.length > 0)
      throw new CliFailure(
        "input_invalid",
        out === undefined ? "Expected --out DIR" : `Expected no arguments, got ${args.positionals.join(" ")}`,
        EXIT.usage,
        `${prog} export --help`,
      );
    const ctx = await operatorContextOf(args, io.env);
    const agentId = stringFlag(args, "agent") ?? "main";
    const session = stringFlag(args, "session");
    const opened = openAgentStore({ config: ctx.config, ledgerRoot: ctx.ledgerRoot, agentId, env: io.env });
    const store = opened.store;
    const refs = await findSessionReferences({
      ledgerRoot: ctx.ledgerRoot,
      openclawState: ctx.openclawState,
      agentId,
      sessionKey: session,
      store,
    });
    const handles = [...refs.handles.keys()].sort();
    if (handles.length === 0)
      throw new CliFailure(
        "not_found",
        `No offloaded output of agent ${agentId}${session ? ` referenced by session ${session}` : ""} (looked in ${refs.transcripts.length} host transcript(s) under ${ctx.openclawState} and the ledger state under ${ctx.ledgerRoot})`,
        EXIT.notFound,
        `${prog} status --all`,
      );

    const metas = new Map<string, ArtifactMeta>();
    for (const h of handles) {
      const meta = await store.tryReadMeta(h).catch(() => undefined);
      if (meta) metas.set(h, meta);
    }
    const names = fileNames(handles, metas);
    const resolved = path.resolve(out);
    const dir = await prepareExportDir(
      resolved,
      args.flags.force === true,
      `${prog} export${session ? ` --session ${session}` : ""} --out ${resolved} --force (files of the same name are replaced)`,
    );
    await assertNamesWritable(dir, [...names.values(), "index.json", "INDEX.md"]);
    io.stderr.write(`${EXPORT_SECRETS_WARNING}; keep ${dir} private.\n`);

    const files: ExportedFile[] = [];
    const failed: ExportFailure[] = [];
    for (const handle of handles) {
      const referencedBy = refs.handles.get(handle) ?? [];
      const meta = metas.get(handle);
      const file = names.get(handle) as string;
      try {
        // The store's read checks the bytes against the handle; the write is checked again after the rename.
        const bytes = await store.read(handle);
        await writeVerifiedFile(dir, file, bytes, parseHandle(handle));
        files.push({
          handle,
          file,
          bytes: bytes.length,
          toolName: meta?.origin.toolName ?? null,
          kind: meta?.kind ?? "artifact",
          sessionKey: meta?.origin.sessionKey ?? null,
          createdAt: meta?.createdAt ?? "",
          referencedBy,
        });
      } catch (err) {
        const code = isLedgerError(err) || err instanceof CliFailure ? err.code : undefined;
        const problem = code === "artifact_not_found" ? "missing" : code === "artifact_corrupt" ? "corrupt" : "failed";
        failed.push({ handle, problem, reason: errorMessage(err), referencedBy });
      }
    }
    const doc: ExportIndex = {
      schema: EXPORT_SCHEMA,
      agentId,
      session: session ?? null,
      at: new Date().toISOString(),
      files,
      failed,
      unreadable: refs.unreadable,
    };
    await writeTextFile(dir, "index.json", `${JSON.stringify(doc, null, 2)}\n`);
    await writeTextFile(dir, "INDEX.md", renderExportIndex(doc));
    const ok = failed.length === 0 && refs.unreadable.length === 0;
    if (json) writeJson(io, { ok, dir, ...doc });
    else {
      const total = files.reduce((s, f) => s + f.bytes, 0);
      io.stdout.write(
        `Exported ${plural(files.length, "output")} (${formatBytes(total)}) of agent ${agentId}${session ? `, session ${session},` : ""} to ${dir}; index: INDEX.md, index.json\n`,
      );
      if (failed.length > 0)
        io.stderr.write(
          `${plural(failed.length, "output")} could not be exported (the others were):\n${failed.map((f) => `  ${f.problem} ${f.handle}: ${f.reason}\n`).join("")}`,
        );
      if (refs.unreadable.length > 0)
        io.stderr.write(
          `Could not read ${plural(refs.unreadable.length, "source")}; outputs they reference may be missing:\n${refs.unreadable.map((u) => `  ${u.source} (${u.reason})\n`).join("")}`,
        );
    }
    return failed.length > 0 ? EXIT.corrupt : refs.unreadable.length > 0 ? EXIT.other : EXIT.ok;
  });
}

/**
 * `<first 16 hex>-<tool or kind>.txt`, one path segment of safe characters; when two handles share their first 16
 * hex digits, both get the whole digest.
 */
function fileNames(handles: readonly string[], metas: ReadonlyMap<string, ArtifactMeta>): Map<string, string> {
  const short = (h: string) => parseHandle(h).slice(0, 16);
  const uses = new Map<string, number>();
  for (const h of handles) uses.set(short(h), (uses.get(short(h)) ?? 0) + 1);
  const out = new Map<string, string>();
  for (const h of handles) {
    const meta = metas.get(h);
    const label = (meta?.origin.toolName ?? meta?.kind ?? "artifact").replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 40);
    out.set(h, `${uses.get(short(h)) === 1 ? short(h) : parseHandle(h)}-${label || "output"}.txt`);
  }
  return out;
}
