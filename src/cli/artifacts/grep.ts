import { grepLines } from "../../artifacts/index.js";
import { compileSafeRegex } from "../../safe-regex.js";
import { resolveAgentSettings } from "../../config/parse-config.js";
import { COMMON_OPTIONS, intFlag, stringFlag } from "../core/args.js";
import { runCommand } from "../core/command.js";
import { CliFailure, EXIT } from "../core/cli-failure.js";
import { formatCount, plural } from "../core/format.js";
import { progName, writeJson, type CliIo } from "../core/cli-io.js";
import { listLedgerAgents } from "../core/ledger-scan.js";
import { operatorContextOf } from "../core/operator-context.js";
import { openAgentStore } from "../core/agent-store.js";

/** Schema tag of `grep --json`. */
export const GREP_SCHEMA = "context-ledger.grep.v1";
/** Artifacts larger than this are skipped (counted as skipped). */
export const GREP_MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;

const SPEC = {
  ...COMMON_OPTIONS,
  session: { type: "string" },
  flags: { type: "string" },
  context: { type: "string" },
  "max-chars": { type: "string" },
  "timeout-ms": { type: "string" },
} as const;
const USAGE = `Usage: {prog} grep PATTERN [--agent ID] [--session KEY] [--flags i] [--context N] [--max-chars N] [--timeout-ms N] [--json]
Searches every stored output the agent may read (its own store and those of retrieval.readableAgents),
newest first, with the same ReDoS-safe regex rules as ledger_fetch: patterns are checked before they run,
long lines are matched in windows, the whole search stops at --timeout-ms (default 5000) and the answer at
--max-chars (default 20000), saying so. --session keeps outputs of one session.
Exit codes: 0 ok (also when nothing matches), 1 usage error, 4 pattern refused.
`;

/** One artifact with matches. */
export interface GrepHit {
  handle: string;
  agentId: string;
  toolName: string | null;
  sessionKey: string | null;
  createdAt: string;
  matches: number;
  text: string;
}

/** `context-ledger grep PATTERN`: bounded, ReDoS-safe search across an agent's readable artifacts. */
export async function runGrepCommand(argv: string[], io: CliIo): Promise<number> {
  return runCommand(argv, io, { name: "grep", options: SPEC, usage: USAGE }, async (args, json) => {
    const [pattern, ...extra] = args.positionals;
    if (pattern === undefined || extra.length > 0)
      throw new CliFailure(
        "input_invalid",
        `Expected one PATTERN, got ${args.positionals.length} arguments`,
        EXIT.usage,
        `${progName(io)} grep --help`,
      );
    const flags = stringFlag(args, "flags") ?? "";
    const safe = compileSafeRegex(pattern, flags);
    const context = intFlag(args, "context", 0, 20) ?? 0;
    const maxChars = intFlag(args, "max-chars", 100, 1_000_000) ?? 20_000;
    const timeoutMs = intFlag(args, "timeout-ms", 10, 600_000) ?? 5_000;
    const ctx = await operatorContextOf(args, io.env);
    const agentId = stringFlag(args, "agent") ?? "main";
    const session = stringFlag(args, "session");
    const readable = resolveAgentSettings(ctx.config, agentId).retrieval.readableAgents;
    const all = await listLedgerAgents(ctx.ledgerRoot);
    const scope = [agentId, ...(readable.includes("*") ? all : readable).filter((a) => a !== agentId && a !== "*")];
    const deadline = Date.now() + timeoutMs;
    const hits: GrepHit[] = [];
    let used = 0;
    let scanned = 0;
    let skipped = 0;
    let timedOut = false;
    let outputFull = false;
    for (const agent of scope) {
      const opened = openAgentStore({ config: ctx.config, ledgerRoot: ctx.ledgerRoot, agentId: agent, env: io.env });
      const store = opened.store;
      const metas = [];
      for await (const m of store.list()) if (session === undefined || m.origin.sessionKey === session) metas.push(m);
      metas.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      for (const meta of metas) {
        if (Date.now() > deadline) {
          timedOut = true;
          break;
        }
        if (meta.bytes > GREP_MAX_ARTIFACT_BYTES) {
          skipped++;
          continue;
        }
        const text = await store.readText(meta.handle).catch(() => undefined);
        if (text === undefined) {
          skipped++;
          continue;
        }
        scanned++;
        const r = grepLines(text, safe.regex, {
          context,
          windowChars: safe.windowChars,
          maxChars: Math.max(0, maxChars - used),
          deadline,
        });
        if (r.timedOut) timedOut = true;
        if (r.outputFull) outputFull = true;
        if (r.matches > 0) {
          hits.push({
            handle: meta.handle,
            agentId: agent,
            toolName: meta.origin.toolName ?? null,
            sessionKey: meta.origin.sessionKey ?? null,
            createdAt: meta.createdAt,
            matches: r.matches,
            text: r.text,
          });
          used += r.text.length;
        }
        if (timedOut) break;
      }
      if (timedOut) break;
    }
    const totals = {
      agents: scope,
      scanned,
      skipped,
      artifactsMatched: hits.length,
      matches: hits.reduce((n, h) => n + h.matches, 0),
      timedOut,
      outputFull,
    };
    if (json) {
      writeJson(io, { schema: GREP_SCHEMA, pattern, flags, session: session ?? null, ...totals, hits });
      return 0;
    }
    for (const h of hits) {
      io.stdout.write(
        `== ${h.handle} · ${[h.toolName, h.sessionKey && `session ${h.sessionKey}`, h.agentId !== agentId && `agent ${h.agentId}`].filter(Boolean).join(" · ") || "-"} · ${plural(h.matches, "match", "matches")}\n`,
      );
      if (h.text) io.stdout.write(h.text.endsWith("\n") ? h.text : `${h.text}\n`);
    }
    const notes = [
      timedOut && `stopped at the ${formatCount(timeoutMs)} ms limit (--timeout-ms)`,
      outputFull && `output capped at ${formatCount(maxChars)} chars (--max-chars)`,
      skipped && `${skipped} skipped (unreadable or over 64 MiB)`,
    ].filter(Boolean);
    io.stderr.write(
      `${plural(totals.matches, "match", "matches")} in ${plural(hits.length, "artifact")} of ${formatCount(scanned)} searched (agents ${scope.join(", ")})${notes.length ? `; ${notes.join("; ")}` : ""}\n`,
    );
    if (hits.length > 0)
      io.stderr.write(
        `next: \`${progName(io)} artifact fetch HANDLE --pattern ${JSON.stringify(pattern)}${agentId !== "main" ? ` --agent ${agentId}` : ""}\` for one output\n`,
      );
    return 0;
  });
}
