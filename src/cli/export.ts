import { createHash } from "node:crypto";
import { constants, promises as fsp } from "node:fs";
import path from "node:path";
import type { ArtifactMeta } from "../artifacts/meta.js";
import { createArtifactStore } from "../artifacts/store.js";
import { errorMessage } from "../errors.js";
import { artifactRoot } from "../state/paths.js";
import { COMMON_OPTIONS, stringFlag } from "./args.js";
import { runCommand } from "./command.js";
import { CliFailure, EXIT } from "./fail.js";
import { formatBytes, formatCount, plural } from "./format.js";
import { progName, writeJson, type CliIo } from "./io.js";
import { loadOperatorContext } from "./operator-context.js";

/** Schema tag of `index.json` and of `export --json`. */
export const EXPORT_SCHEMA = "context-ledger.export.v1";

const SPEC = {
  ...COMMON_OPTIONS,
  session: { type: "string" },
  out: { type: "string" },
  force: { type: "boolean" },
} as const;
const USAGE = `Usage: {prog} export --out DIR [--agent ID] [--session KEY] [--force] [--json]
Writes the agent's offloaded outputs (all of them, or those of one session) back out as plain files, byte-exact
and checked against their handles, with DIR/index.json and DIR/INDEX.md mapping each handle to its file. This is
the way out: run it before disabling or uninstalling context-ledger, and the stubs' handles stay resolvable
(INDEX.md says which file holds which handle). Files are the outputs as stored, not redacted: they may hold
secrets; DIR is 0700 and every file 0600. An existing non-empty DIR is refused unless --force.
Exit codes: 0 ok, 1 usage error, 2 nothing to export, 3 an output missing or corrupt (the rest is written).
`;

/** One exported output, as `index.json` lists it. */
export interface ExportedFile {
  handle: string;
  file: string;
  bytes: number;
  toolName: string | null;
  kind: string;
  sessionKey: string | null;
  createdAt: string;
}

/** `context-ledger export --out DIR`: the off-ramp, every offloaded output as a plain file with an index. */
export async function runExportCommand(argv: string[], io: CliIo): Promise<number> {
  return runCommand(argv, io, { name: "export", options: SPEC, usage: USAGE }, async (args, json) => {
    const out = stringFlag(args, "out");
    if (out === undefined || args.positionals.length > 0)
      throw new CliFailure(
        "input_invalid",
        out === undefined ? "Expected --out DIR" : `Expected no arguments, got ${args.positionals.join(" ")}`,
        EXIT.usage,
        `${progName(io)} export --help`,
      );
    const ctx = await loadOperatorContext({
      stateDir: stringFlag(args, "state-dir"),
      openclawState: stringFlag(args, "openclaw-state"),
      env: io.env,
    });
    const agentId = stringFlag(args, "agent") ?? "main";
    const session = stringFlag(args, "session");
    const store = createArtifactStore({ root: artifactRoot(ctx.ledgerRoot, agentId) });
    const metas: ArtifactMeta[] = [];
    for await (const m of store.list()) if (session === undefined || m.origin.sessionKey === session) metas.push(m);
    metas.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.handle.localeCompare(b.handle));
    if (metas.length === 0)
      throw new CliFailure(
        "not_found",
        `No stored output of agent ${agentId}${session ? ` in session ${session}` : ""}`,
        EXIT.notFound,
        `${progName(io)} artifact list --agent ${agentId}`,
      );
    const dir = await prepareOutDir(path.resolve(out), args.flags.force === true, io);
    io.stderr.write(
      `These files are the outputs as stored, not redacted: they may hold secrets. Keep ${dir} private.\n`,
    );
    const files: ExportedFile[] = [];
    const failed: { handle: string; reason: string }[] = [];
    for (const meta of metas) {
      try {
        const file = fileName(meta);
        await writeVerified(path.join(dir, file), await store.read(meta.handle), meta.sha256);
        files.push({
          handle: meta.handle,
          file,
          bytes: meta.bytes,
          toolName: meta.origin.toolName ?? null,
          kind: meta.kind,
          sessionKey: meta.origin.sessionKey ?? null,
          createdAt: meta.createdAt,
        });
      } catch (err) {
        failed.push({ handle: meta.handle, reason: errorMessage(err) });
      }
    }
    const doc = {
      schema: EXPORT_SCHEMA,
      agentId,
      session: session ?? null,
      at: new Date().toISOString(),
      files,
      failed,
    };
    await writeNew(path.join(dir, "index.json"), `${JSON.stringify(doc, null, 2)}\n`);
    await writeNew(path.join(dir, "INDEX.md"), renderIndex(doc));
    if (json) writeJson(io, { ok: failed.length === 0, dir, ...doc });
    else {
      const total = files.reduce((s, f) => s + f.bytes, 0);
      io.stdout.write(
        `Exported ${plural(files.length, "output")} (${formatBytes(total)}) of agent ${agentId} to ${dir}; index: INDEX.md, index.json\n`,
      );
      for (const f of failed) io.stderr.write(`not exported ${f.handle}: ${f.reason}\n`);
    }
    return failed.length === 0 ? EXIT.ok : EXIT.corrupt;
  });
}

/** `<first 16 hex>-<tool or kind>.txt`: sortable, unique per content, and safe as a file name. */
function fileName(meta: ArtifactMeta): string {
  const label = (meta.origin.toolName ?? meta.kind).replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 40) || "output";
  return `${meta.sha256.slice(0, 16)}-${label}.txt`;
}

async function prepareOutDir(dir: string, force: boolean, io: CliIo): Promise<string> {
  const stat = await fsp
    .lstat(dir)
    .catch((err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? null : Promise.reject(err)));
  if (stat && !stat.isDirectory())
    throw new CliFailure("input_invalid", `Expected --out to be a directory, got ${dir} (not a directory)`, EXIT.usage);
  if (stat && (await fsp.readdir(dir)).length > 0 && !force)
    throw new CliFailure(
      "input_invalid",
      `Expected --out to be a new or empty directory, got ${dir} with files in it`,
      EXIT.usage,
      `${progName(io)} export --out ${dir} --force (files of the same name are replaced)`,
    );
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

// O_NOFOLLOW: a symlink planted in DIR is refused, never written through.
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

async function writeNew(file: string, content: string | Buffer): Promise<void> {
  const handle = await fsp.open(file, WRITE_FLAGS, 0o600).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "ELOOP") throw err;
    throw new CliFailure("input_invalid", `Refusing to write through a symlink: ${file}`, EXIT.usage);
  });
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `bytes`, reads the file back and checks it against the handle's digest. */
async function writeVerified(file: string, bytes: Buffer, sha256: string): Promise<void> {
  await writeNew(file, bytes);
  const written = createHash("sha256")
    .update(await fsp.readFile(file))
    .digest("hex");
  if (written !== sha256)
    throw new CliFailure("artifact_corrupt", `Expected ${file} to hash to ${sha256}, got ${written}`, EXIT.corrupt);
}

function renderIndex(doc: { agentId: string; session: string | null; at: string; files: ExportedFile[] }): string {
  const rows = doc.files.map(
    (f) =>
      `| \`${f.handle}\` | ${f.file} | ${formatCount(f.bytes)} | ${f.toolName ?? f.kind} | ${f.sessionKey ?? "-"} |`,
  );
  return [
    `# context-ledger export: agent ${doc.agentId}${doc.session ? `, session ${doc.session}` : ""}`,
    "",
    `Exported ${doc.at}. A stub in a transcript names a handle; the file on its row holds that output, byte-exact`,
    "(its SHA-256 is the hex after `sha256:`). These are the outputs as stored, not redacted.",
    "",
    "| handle | file | bytes | tool | session |",
    "|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
