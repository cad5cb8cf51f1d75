import { promises as fsp } from "node:fs";
import path from "node:path";
import { parseHandle } from "../artifacts/handle.js";
import { createArtifactStore } from "../artifacts/store.js";
import { errorMessage, isLedgerError } from "../errors.js";
import { artifactRoot } from "../state/paths.js";
import { parseCheckpointPack, type CheckpointPack } from "../summary/checkpoint.js";
import { tryLoadSummary } from "../summary/sidecar.js";
import type { CliIo } from "./run-cli.js";
import { COMMON_OPTIONS, parseCommandLine, stringOption } from "./ops/cli-options.js";
import { formatBytes, formatCount, formatTable } from "./ops/format.js";
import { loadOperatorContext } from "./ops/host-config.js";
import { listLedgerAgents, listLedgerSessions } from "./ops/ledger-scan.js";

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

const SPEC = { ...COMMON_OPTIONS, session: { type: "string" } } as const;
const USAGE = "Usage: context-ledger checkpoint list [--agent ID] [--session KEY] [--json]\n       context-ledger checkpoint show HANDLE [--agent ID] [--json]\n";

/** `context-ledger checkpoint list | show`. */
export async function runCheckpointCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "list" && sub !== "show") {
    io.stderr.write(sub && sub !== "--help" && sub !== "-h" ? `context-ledger checkpoint: unknown subcommand \`${sub}\`\n${USAGE}` : USAGE);
    return sub === "--help" || sub === "-h" ? 0 : 1;
  }
  let parsed;
  try {
    parsed = parseCommandLine(rest, SPEC, `context-ledger checkpoint ${sub}`);
  } catch (err) {
    io.stderr.write(`context-ledger checkpoint ${sub}: ${errorMessage(err)}\n${USAGE}`);
    return 1;
  }
  const { values, positionals } = parsed;
  const ctx = await loadOperatorContext({ stateDir: stringOption(values, "state-dir"), openclawState: stringOption(values, "openclaw-state"), env: io.env });
  const agentFilter = stringOption(values, "agent");
  if (sub === "list") {
    const list = await listCheckpoints(ctx.ledgerRoot, agentFilter, stringOption(values, "session"));
    if (values.json) io.stdout.write(`${JSON.stringify({ schema: CHECKPOINT_LIST_SCHEMA, root: ctx.ledgerRoot, checkpoints: list }, null, 2)}\n`);
    else if (list.length === 0) io.stdout.write(`No checkpoints under ${ctx.ledgerRoot}\n`);
    else {
      io.stdout.write(
        formatTable(
          ["AGENT", "SESSION", "SEALED", "COVERS", "SIZE", "HANDLE"],
          list.map((c) => [c.agentId, c.sessionKey ?? "-", c.at ?? "-", formatCount(c.coveredCount), c.bytes === null ? "-" : formatBytes(c.bytes), c.handle]),
        ),
      );
    }
    return 0;
  }
  const handle = positionals[0];
  if (!handle || positionals.length > 1) {
    io.stderr.write(`context-ledger checkpoint show: expected one HANDLE, got ${positionals.length}\n${USAGE}`);
    return 1;
  }
  try {
    parseHandle(handle);
    const agents = agentFilter ? [agentFilter] : await listLedgerAgents(ctx.ledgerRoot);
    for (const agentId of agents) {
      const store = createArtifactStore({ root: artifactRoot(ctx.ledgerRoot, agentId) });
      const data = await store.tryRead(handle);
      if (!data) continue;
      const kind = (await store.tryReadMeta(handle).catch(() => undefined))?.kind;
      if (kind !== undefined && kind !== "checkpoint") {
        io.stderr.write(`context-ledger checkpoint show: expected a checkpoint pack, got a \`${kind}\` artifact (${handle}); use \`context-ledger artifact fetch\`\n`);
        return 4;
      }
      const pack = parseCheckpointPack(data.toString("utf8"));
      io.stdout.write(values.json ? `${JSON.stringify({ schema: CHECKPOINT_SHOW_SCHEMA, agentId, handle, bytes: data.length, pack }, null, 2)}\n` : renderPack(agentId, handle, data.length, pack));
      return 0;
    }
    io.stderr.write(`context-ledger checkpoint show: no checkpoint ${handle} in ${agentFilter ? `agent \`${agentFilter}\`'s store` : "any agent's store"} under ${ctx.ledgerRoot}\n`);
    return 2;
  } catch (err) {
    io.stderr.write(`context-ledger checkpoint show: ${errorMessage(err)}\n`);
    if (isLedgerError(err, "handle_invalid")) return 4;
    if (isLedgerError(err, "artifact_corrupt") || isLedgerError(err, "state_corrupt")) return 3;
    return 5;
  }
}

/**
 * Every checkpoint the ledger knows: those recorded in session states and
 * summary sidecars, and any artifact of kind `checkpoint` in the stores.
 * Sorted by agent, then seal time.
 */
export async function listCheckpoints(root: string, agentFilter?: string, sessionFilter?: string): Promise<CheckpointListing[]> {
  const out: CheckpointListing[] = [];
  for (const agentId of await listLedgerAgents(root)) {
    if (agentFilter !== undefined && agentId !== agentFilter) continue;
    const byHandle = new Map<string, CheckpointListing>();
    const add = (c: CheckpointListing) => {
      const prev = byHandle.get(c.handle);
      byHandle.set(c.handle, prev ? { ...prev, sessionKey: prev.sessionKey ?? c.sessionKey, at: prev.at ?? c.at, coveredCount: prev.coveredCount ?? c.coveredCount, bytes: prev.bytes ?? c.bytes } : c);
    };
    for (const s of await listLedgerSessions(root, agentId)) {
      for (const cp of s.state?.checkpoints ?? []) add({ agentId, sessionKey: s.sessionKey, handle: cp.handle, at: cp.at, coveredCount: cp.coveredCount, bytes: null });
      const sidecars = (await fsp.readdir(s.dir).catch(() => [] as string[])).filter((n) => n.startsWith("summary-") && n.endsWith(".json"));
      for (const name of sidecars) {
        const summary = await tryLoadSummary(path.join(s.dir, name));
        for (const ref of summary?.checkpoints ?? []) add({ agentId, sessionKey: s.sessionKey, handle: ref.handle, at: null, coveredCount: ref.coveredCount, bytes: null });
      }
    }
    const store = createArtifactStore({ root: artifactRoot(root, agentId) });
    for await (const meta of store.list()) {
      if (meta.kind === "checkpoint" || byHandle.has(meta.handle)) {
        add({ agentId, sessionKey: meta.origin.sessionKey ?? null, handle: meta.handle, at: meta.createdAt, coveredCount: null, bytes: meta.bytes });
      }
    }
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
