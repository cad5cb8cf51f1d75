import { promises as fsp } from "node:fs";
import path from "node:path";
import { parseHandle } from "../../artifacts/index.js";
import type { LedgerConfig } from "../../config/schema.js";
import { parseCheckpointPack, type CheckpointPack } from "../../summary/checkpoint.js";
import { tryLoadSummary } from "../../summary/sidecar.js";
import { COMMON_OPTIONS, stringFlag } from "../core/args.js";
import { runCommand, runGroup } from "../core/command.js";
import { CliFailure, EXIT } from "../core/cli-failure.js";
import { formatBytes, formatCount, formatTable } from "../core/format.js";
import { progName, writeJson, type CliIo } from "../core/cli-io.js";
import { listLedgerAgents, listLedgerSessions } from "../core/ledger-scan.js";
import { operatorContextOf } from "../core/operator-context.js";
import { readAgentStore } from "../core/agent-store.js";

/** Schema tag of `checkpoint list --json`. */
export const CHECKPOINT_LIST_SCHEMA = "context-ledger.checkpoint.list.v1";
/** Schema tag of `checkpoint show --json`. */
export const CHECKPOINT_SHOW_SCHEMA = "context-ledger.checkpoint.show.v1";

/** One checkpoint known to the ledger. */
export interface CheckpointListing {
  agentId: string;
  /** The session that sealed it, when known. */
  sessionKey: string | null;
  handle: string;
  /** When it was sealed (session state) or stored (artifact meta). */
  at: string | null;
  /** Messages it covers, when known. */
  coveredCount: number | null;
  /** Size of the pack, when it is in the store. */
  bytes: number | null;
}

const LIST_SPEC = { ...COMMON_OPTIONS, session: { type: "string" } } as const;
const SHOW_SPEC = { ...COMMON_OPTIONS } as const;
const LIST_USAGE = `Usage: {prog} checkpoint list [--agent ID] [--session KEY] [--json]
Every checkpoint pack the ledger knows (session states, summaries, stores), oldest first.
`;
const SHOW_USAGE = `Usage: {prog} checkpoint show HANDLE [--agent ID] [--json]
One checkpoint pack: frontier, coverage, artifacts and the summary as injected after compaction.
Exit codes: 0 ok, 1 usage error, 2 not found, 3 corrupt, 4 not a checkpoint or invalid handle.
`;
const GROUP_USAGE = `Usage: {prog} checkpoint <command> [options]
  list [--agent ID] [--session KEY] [--json]   checkpoint packs sealed by compaction
  show HANDLE [--agent ID] [--json]            one pack in full
Run \`{prog} checkpoint <command> --help\` for one command's options.
`;

/** `context-ledger checkpoint list | show`. */
export async function runCheckpointCommand(argv: string[], io: CliIo): Promise<number> {
  return runGroup(argv, io, { name: "checkpoint", usage: GROUP_USAGE, commands: { list: runList, show: runShow } });
}

async function runList(argv: string[], io: CliIo): Promise<number> {
  return runCommand(
    argv,
    io,
    { name: "checkpoint list", options: LIST_SPEC, usage: LIST_USAGE },
    async (args, json) => {
      const ctx = await operatorContextOf(args, io.env);
      const list = await listCheckpoints(ctx.ledgerRoot, {
        config: ctx.config,
        env: io.env,
        agent: stringFlag(args, "agent"),
        session: stringFlag(args, "session"),
      });
      if (json) writeJson(io, { schema: CHECKPOINT_LIST_SCHEMA, root: ctx.ledgerRoot, checkpoints: list });
      else if (list.length === 0) io.stdout.write(`No checkpoints under ${ctx.ledgerRoot}\n`);
      else {
        io.stdout.write(
          formatTable(
            ["AGENT", "SESSION", "SEALED", "COVERS", "SIZE", "HANDLE"],
            list.map((c) => [
              c.agentId,
              c.sessionKey ?? "-",
              c.at ?? "-",
              formatCount(c.coveredCount),
              c.bytes === null ? "-" : formatBytes(c.bytes),
              c.handle,
            ]),
          ),
        );
      }
      return 0;
    },
  );
}

async function runShow(argv: string[], io: CliIo): Promise<number> {
  return runCommand(
    argv,
    io,
    { name: "checkpoint show", options: SHOW_SPEC, usage: SHOW_USAGE },
    async (args, json) => {
      const { positionals } = args;
      const handle = positionals[0];
      if (!handle || positionals.length > 1)
        throw new CliFailure(
          "input_invalid",
          `Expected one HANDLE, got ${positionals.length} arguments`,
          EXIT.usage,
          `${progName(io)} checkpoint list`,
        );
      parseHandle(handle);
      const ctx = await operatorContextOf(args, io.env);
      const agentFilter = stringFlag(args, "agent");
      const agents = agentFilter ? [agentFilter] : await listLedgerAgents(ctx.ledgerRoot);
      for (const agentId of agents) {
        const opening = { config: ctx.config, ledgerRoot: ctx.ledgerRoot, agentId, env: io.env };
        const { data, kind } = await readAgentStore(opening, async (store) => {
          const data = await store.tryRead(handle);
          const kind = data ? (await store.tryReadMeta(handle).catch(() => undefined))?.kind : undefined;
          return { data, kind };
        });
        if (!data) continue;
        if (kind !== undefined && kind !== "checkpoint") {
          throw new CliFailure(
            "handle_invalid",
            `expected a checkpoint pack, got a \`${kind}\` artifact (${handle})`,
            EXIT.invalid,
            `${progName(io)} artifact fetch ${handle} --agent ${agentId}`,
          );
        }
        const pack = parseCheckpointPack(data.toString("utf8"));
        if (json) writeJson(io, { schema: CHECKPOINT_SHOW_SCHEMA, agentId, handle, bytes: data.length, pack });
        else io.stdout.write(renderPack(agentId, handle, data.length, pack));
        return 0;
      }
      throw new CliFailure(
        "not_found",
        `no checkpoint ${handle} in ${agentFilter ? `agent \`${agentFilter}\`'s store` : "any agent's store"} under ${ctx.ledgerRoot}`,
        EXIT.notFound,
        `${progName(io)} checkpoint list`,
      );
    },
  );
}

/** Options of {@link listCheckpoints}. */
export interface ListCheckpointsOptions {
  /** The plugin config: each agent's store is opened on its configured backend. */
  config: LedgerConfig;
  /** Where the bucket's credentials are read from. */
  env: NodeJS.ProcessEnv;
  /** Only this agent. */
  agent?: string;
  /** Only this session. */
  session?: string;
}

/**
 * Every checkpoint the ledger knows: those recorded in session states and
 * summary sidecars, and any artifact of kind `checkpoint` in the stores.
 * Sorted by agent, then seal time.
 */
export async function listCheckpoints(root: string, options: ListCheckpointsOptions): Promise<CheckpointListing[]> {
  const { agent: agentFilter, session: sessionFilter } = options;
  const out: CheckpointListing[] = [];
  for (const agentId of await listLedgerAgents(root)) {
    if (agentFilter !== undefined && agentId !== agentFilter) continue;
    const byHandle = new Map<string, CheckpointListing>();
    const add = (c: CheckpointListing) => {
      const prev = byHandle.get(c.handle);
      byHandle.set(
        c.handle,
        prev
          ? {
              ...prev,
              sessionKey: prev.sessionKey ?? c.sessionKey,
              at: prev.at ?? c.at,
              coveredCount: prev.coveredCount ?? c.coveredCount,
              bytes: prev.bytes ?? c.bytes,
            }
          : c,
      );
    };
    for (const s of await listLedgerSessions(root, agentId)) {
      for (const cp of s.state?.checkpoints ?? [])
        add({
          agentId,
          sessionKey: s.sessionKey,
          handle: cp.handle,
          at: cp.at,
          coveredCount: cp.coveredCount,
          bytes: null,
        });
      const sidecars = (await fsp.readdir(s.dir).catch(() => [] as string[])).filter(
        (n) => n.startsWith("summary-") && n.endsWith(".json"),
      );
      for (const name of sidecars) {
        const summary = await tryLoadSummary(path.join(s.dir, name));
        for (const ref of summary?.checkpoints ?? [])
          add({
            agentId,
            sessionKey: s.sessionKey,
            handle: ref.handle,
            at: null,
            coveredCount: ref.coveredCount,
            bytes: null,
          });
      }
    }
    await readAgentStore({ config: options.config, ledgerRoot: root, agentId, env: options.env }, async (store) => {
      for await (const meta of store.list()) {
        if (meta.kind === "checkpoint" || byHandle.has(meta.handle)) {
          add({
            agentId,
            sessionKey: meta.origin.sessionKey ?? null,
            handle: meta.handle,
            at: meta.createdAt,
            coveredCount: null,
            bytes: meta.bytes,
          });
        }
      }
    });
    const rows = [...byHandle.values()].filter((c) => sessionFilter === undefined || c.sessionKey === sessionFilter);
    rows.sort((a, b) => (a.at ?? "").localeCompare(b.at ?? "") || a.handle.localeCompare(b.handle));
    out.push(...rows);
  }
  return out;
}

/** Human rendering of one checkpoint pack. */
export function renderPack(agentId: string, handle: string, bytes: number, pack: CheckpointPack): string {
  const f = pack.frontier;
  const lines = [
    `Checkpoint ${handle}`,
    `  agent      ${agentId}`,
    `  size       ${formatBytes(bytes)}`,
    `  epoch      ${pack.epoch}`,
    `  frontier   message ${f.index}${f.entryId ? ` (entry ${f.entryId})` : ""}${f.fingerprint ? `, fingerprint ${f.fingerprint}` : ""}`,
    `  covers     ${formatCount(pack.summary.coveredCount)} messages: ${formatCount(pack.summary.digest.turns)} folded turns + ${formatCount(pack.summary.entries.length)} detailed`,
    `  previous   ${pack.previous ?? "none (first checkpoint of this conversation)"}`,
    `  artifacts  ${pack.artifacts.length}`,
    ...pack.artifacts.map((h) => `    ${h}`),
    "",
    "Summary as injected after compaction:",
    ...pack.rendered.split("\n").map((l) => `  ${l}`),
  ];
  return `${lines.join("\n")}\n`;
}
