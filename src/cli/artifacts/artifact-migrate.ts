import { createHash } from "node:crypto";
import path from "node:path";
import {
  assertBucketAnswers,
  BACKEND_KINDS,
  listBucketAgentSegments,
  migrateArtifacts,
  openMigrationEnds,
  type MigrateDirection,
  type MigrateReport,
} from "../../artifacts/index.js";
import { LedgerError } from "../../errors.js";
import { agentRoot, artifactRoot, decodeSegment, encodeSegment } from "../../state/paths.js";
import { choiceFlag, COMMON_OPTIONS, stringFlag, type ArgSpec } from "../core/args.js";
import { writeReceipt } from "./artifact-receipts.js";
import { runCommand } from "../core/command.js";
import { EXIT } from "../core/cli-failure.js";
import { formatBytes, plural } from "../core/format.js";
import { progName, type CliIo } from "../core/cli-io.js";
import { listLedgerAgents } from "../core/ledger-scan.js";
import { operatorContextOf } from "../core/operator-context.js";

/** Receipt schema of `artifact migrate --json`. */
export const MIGRATE_SCHEMA = "context-ledger.artifact.migrate.v1";

/** A progress line on stderr after this many artifacts. */
const PROGRESS_EVERY = 25;

const OPTIONS: ArgSpec = {
  ...COMMON_OPTIONS,
  to: { type: "string" },
  all: { type: "boolean" },
  "dry-run": { type: "boolean" },
};

/** Help of `artifact migrate`. */
export const MIGRATE_USAGE = `Usage: {prog} artifact migrate --to s3|file [--agent ID | --all] [--dry-run] [--json]
Copies every artifact of the agent (or of all agents) from the local file store to the bucket of store.s3
(--to s3), or from the bucket to the local file store (--to file), in the store's own format. Each artifact
counts as moved once the target's copy verified; a rerun copies only what is missing. Never deletes the source.
A progress line goes to stderr every ${PROGRESS_EVERY} artifacts; Ctrl-C stops between two artifacts.
Options: --agent ID (default main), --all, --dry-run, --state-dir DIR, --openclaw-state DIR, --json, --help
Exit codes: 0 every artifact moved, 1 usage or config error, 2 credentials refused, 3 an artifact failed
verification, 5 interrupted or the bucket unreachable
`;

/**
 * `context-ledger artifact migrate`: moves agents' artifacts between the local
 * file store and the configured bucket, resumable and verified; says how to
 * switch `store.backend` afterwards and remove the old copy.
 */
export async function runMigrateCommand(argv: string[], io: CliIo): Promise<number> {
  return runCommand(
    argv,
    io,
    { name: "artifact migrate", options: OPTIONS, usage: MIGRATE_USAGE },
    async (args, json) => {
      const to = choiceFlag(args, "to", BACKEND_KINDS);
      if (!to) throw new LedgerError("input_invalid", "Expected --to s3 or --to file, got none");
      const all = args.flags.all === true;
      const agentFlag = stringFlag(args, "agent");
      if (all && agentFlag !== undefined)
        throw new LedgerError("input_invalid", "Expected --agent ID or --all, got both");
      const ctx = await operatorContextOf(args, io.env);
      if (ctx.configError) throw new LedgerError("config_invalid", ctx.configError);
      const settings = ctx.config.store;
      const agents = all
        ? to === "file"
          ? (await listBucketAgentSegments(settings, io.env)).map(decodeSegment)
          : await listLedgerAgents(ctx.ledgerRoot)
        : [agentFlag ?? "main"];
      const dryRun = args.flags["dry-run"] === true;
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once("SIGINT", onSigint);
      const reports: Array<MigrateReport & { agentId: string; ms: number }> = [];
      try {
        for (const agentId of agents) {
          if (controller.signal.aborted) break;
          const root = artifactRoot(ctx.ledgerRoot, agentId);
          const ends = openMigrationEnds({ to, root, agentSegment: encodeSegment(agentId), settings, env: io.env });
          await assertBucketAnswers(ends.bucket, settings);
          const started = Date.now();
          const report = await migrateArtifacts({
            ...ends,
            root,
            journal: journalFile(agentRoot(ctx.ledgerRoot, agentId), to, ends.target.location),
            dryRun,
            signal: controller.signal,
            onArtifact: (p) => {
              if (p.done % PROGRESS_EVERY === 0 && p.done < p.total)
                io.stderr.write(`migrate ${agentId}: ${p.done}/${p.total} artifacts\n`);
            },
          });
          reports.push({ agentId, ms: Date.now() - started, ...report });
          if (!json) io.stdout.write(`${migrateSummaryLine(agentId, report, Date.now() - started)}\n`);
        }
      } finally {
        process.removeListener("SIGINT", onSigint);
      }
      const interrupted = reports.some((r) => r.interrupted) || controller.signal.aborted;
      const failed = reports.some((r) => r.failed.length > 0);
      const next = nextSteps(io, to, settings.s3, dryRun);
      if (json) writeReceipt(io, MIGRATE_SCHEMA, { to, dryRun, interrupted, agents: reports, next });
      else {
        for (const r of reports)
          for (const f of r.failed) io.stderr.write(`failed ${f.handle} (agent ${r.agentId}): ${f.reason}\n`);
        if (interrupted)
          io.stderr.write(`interrupted: what was verified stays moved; run the same command again to go on\n`);
        else if (!failed) io.stdout.write(`${next}\n`);
      }
      return interrupted ? EXIT.other : failed ? EXIT.corrupt : EXIT.ok;
    },
  );
}

function migrateSummaryLine(agentId: string, r: MigrateReport, ms: number): string {
  const verb = r.dryRun ? "would copy" : "copied and verified";
  return `agent ${agentId}: ${plural(r.total, "artifact")} from ${r.source} to ${r.target}: ${verb} ${r.copied} (${formatBytes(r.copiedBytes)}), already there ${r.present}, failed ${r.failed.length}${r.orphanedMeta.length ? `, ${plural(r.orphanedMeta.length, "meta")} without a blob skipped` : ""}${r.interrupted ? ", interrupted" : ""} (${(ms / 1000).toFixed(1)} s)`;
}

/** What to do after a migration: switch the backend, rerun for the gap, then remove the old copy. */
function nextSteps(
  io: CliIo,
  to: MigrateDirection,
  s3: { bucket: string; prefix: string } | undefined,
  dryRun: boolean,
): string {
  const again = `${progName(io)} artifact migrate --to ${to}`;
  if (dryRun) return `dry run: nothing written; run \`${again}\` to copy`;
  return to !== "file"
    ? `next: set store.backend to "${to}" in the plugin config, restart the gateway, then run \`${again}\` once more for what was stashed in between (it copies only what is missing). The local copies stay: the gateway keeps them as its read cache and drops each once the bucket confirms it, beyond store.cacheBytes.`
    : `next: set store.backend to "file" in the plugin config, restart the gateway, then run \`${again}\` once more for what was uploaded in between. The bucket copy stays; once no other gateway shares the prefix, remove it with the provider's tools (e.g. \`aws s3 rm --recursive s3://${s3?.bucket}/${s3?.prefix}/agents/<agent>/\`).`;
}

/** Where a migration to `target` remembers the artifacts it verified there. */
function journalFile(agentDir: string, to: MigrateDirection, target: string): string {
  const id = createHash("sha256").update(target).digest("hex").slice(0, 16);
  return path.join(agentDir, "migrate", `to-${to}-${id}.verified`);
}
