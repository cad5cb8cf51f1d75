import { promises as fsp } from "node:fs";
import path from "node:path";
import { COMMON_OPTIONS, parseDuration, stringFlag } from "../core/args.js";
import { runCommand } from "../core/command.js";
import { formatBytes, formatTable, plural } from "../core/format.js";
import { progName, writeJson, type CliIo } from "../core/cli-io.js";
import { operatorContextOf } from "../core/operator-context.js";

/** Schema tag of `session backups --json`. */
export const SESSION_BACKUPS_SCHEMA = "context-ledger.session.backups.v1";

const SPEC = { ...COMMON_OPTIONS, prune: { type: "boolean" }, "older-than": { type: "string" } } as const;
const USAGE = `Usage: {prog} session backups [--prune] [--older-than DURATION] [--agent ID] [--openclaw-state DIR] [--json]
Lists the <session>.jsonl.bak-<time> files \`session clean\` keeps beside the sessions it rewrote, with sizes.
--prune removes them (only those older than --older-than, e.g. 7d, when given). The cleaned payloads stay in the artifact store.
`;

/** One backup file. */
export interface BackupFile {
  file: string;
  bytes: number;
  modifiedAt: string;
  removed: boolean;
}

/** `context-ledger session backups [--prune]`: the space `session clean` has not given back yet. */
export async function runBackupsCommand(argv: string[], io: CliIo): Promise<number> {
  return runCommand(argv, io, { name: "session backups", options: SPEC, usage: USAGE }, async (args, json) => {
    const ctx = await operatorContextOf(args, io.env);
    const agentId = stringFlag(args, "agent") ?? "main";
    const olderRaw = stringFlag(args, "older-than");
    const olderMs = olderRaw === undefined ? 0 : parseDuration(olderRaw, "older-than");
    const prune = args.flags.prune === true;
    const dir = path.join(ctx.openclawState, "agents", agentId, "sessions");
    const names = (await fsp.readdir(dir).catch(() => [] as string[])).filter((n) => /\.jsonl\.bak-/.test(n)).sort();
    const now = Date.now();
    const backups: BackupFile[] = [];
    for (const name of names) {
      const file = path.join(dir, name);
      const st = await fsp.lstat(file).catch(() => undefined);
      if (!st?.isFile()) continue;
      const due = prune && now - st.mtimeMs >= olderMs;
      if (due) await fsp.rm(file, { force: true });
      backups.push({ file, bytes: st.size, modifiedAt: st.mtime.toISOString(), removed: due });
    }
    const total = backups.reduce((n, b) => n + b.bytes, 0);
    const freed = backups.filter((b) => b.removed).reduce((n, b) => n + b.bytes, 0);
    if (json) {
      writeJson(io, {
        schema: SESSION_BACKUPS_SCHEMA,
        agentId,
        dir,
        prune,
        olderThanMs: olderMs,
        backups,
        totals: {
          count: backups.length,
          bytes: total,
          removed: backups.filter((b) => b.removed).length,
          freedBytes: freed,
        },
      });
      return 0;
    }
    if (backups.length === 0) {
      io.stdout.write(`No session backups in ${dir}\n`);
      return 0;
    }
    io.stdout.write(
      formatTable(
        ["BACKUP", "SIZE", "MODIFIED", "STATUS"],
        backups.map((b) => [path.basename(b.file), formatBytes(b.bytes), b.modifiedAt, b.removed ? "removed" : "kept"]),
      ),
    );
    io.stdout.write(
      prune
        ? `\nRemoved ${plural(backups.filter((b) => b.removed).length, "backup")}, freed ${formatBytes(freed)}.\n`
        : `\n${plural(backups.length, "backup")}, ${formatBytes(total)}. Remove them with \`${progName(io)} session backups --prune${agentId !== "main" ? ` --agent ${agentId}` : ""}\`.\n`,
    );
    return 0;
  });
}
