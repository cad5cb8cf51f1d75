import { parseLineRange } from "../../retrieval/fetch-input.js";
import { promises as fsp } from "node:fs";
import { listedHandles, resolveHandleRef, parseSelector, type Selector } from "../../artifacts/index.js";
import { openAgentStore } from "../core/agent-store.js";
import { isLedgerError, LedgerError } from "../../errors.js";
import { parseJsonOrThrow } from "../../json.js";
import { readReclaimedLines } from "../../maintenance/reclaimed-lines.js";
import { detectFormat, type OutputFormat } from "../../results/detect-format.js";
import { buildPreview } from "../../results/preview.js";
import { resolveAgentSettings } from "../../config/parse-config.js";
import type { LedgerConfig } from "../../config/schema.js";
import { compileRedactPatterns, redactSecrets } from "../../results/redact.js";
import { agentRoot, artifactRoot } from "../../state/paths.js";
import { choiceFlag, COMMON_OPTIONS, intFlag, stringFlag, type ArgSpec, type ParsedArgs } from "../core/args.js";
import { runGcCommand, runListCommand, runRmCommand } from "./artifact-admin.js";
import { runMigrateCommand } from "./artifact-migrate.js";
import { ARTIFACT_SCHEMAS, writeReceipt, type ArtifactCommandContext } from "./artifact-receipts.js";
import { runCommand, runGroup } from "../core/command.js";
import { CliFailure, EXIT } from "../core/cli-failure.js";
import { progName, type CliIo } from "../core/cli-io.js";
import { listLedgerAgents } from "../core/ledger-scan.js";
import { operatorContextOf } from "../core/operator-context.js";

export { ARTIFACT_SCHEMAS } from "./artifact-receipts.js";
export { exitCodeFor } from "../core/cli-failure.js";

/** Formats `artifact stash --format` accepts. */
export const STASH_FORMATS: readonly OutputFormat[] = ["json", "html", "xml", "pdf-text", "log", "text"];

const COMMON: ArgSpec = COMMON_OPTIONS;
const TAIL =
  "Options: --agent ID (default main), --state-dir DIR, --openclaw-state DIR, --json, --help\nExit codes: 0 ok, 1 usage error, 2 not found, 3 corrupt, 4 invalid handle or selector, 5 other failure\n";

const LEAVES: Record<string, { options: ArgSpec; usage: string; run: (c: ArtifactCommandContext) => Promise<number> }> =
  {
    stash: {
      options: { ...COMMON, kind: { type: "string" }, format: { type: "string" } },
      usage: `Usage: {prog} artifact stash [FILE|-] [--kind K] [--format ${STASH_FORMATS.join("|")}]\nStores a file (or stdin) in the agent's store and prints its handle.\n${TAIL}`,
      run: stash,
    },
    fetch: {
      options: {
        ...COMMON,
        selector: { type: "string" },
        lines: { type: "string" },
        pattern: { type: "string" },
        flags: { type: "string" },
        context: { type: "string" },
        start: { type: "string" },
        end: { type: "string" },
        path: { type: "string" },
        "max-chars": { type: "string" },
        raw: { type: "boolean" },
        unpack: { type: "boolean" },
      },
      usage: `Usage: {prog} artifact fetch HANDLE [--lines A-B] [--selector KIND|JSON] [--lines N] [--pattern RE --flags i --context N]\n         [--start N --end N] [--path JSONPATH] [--max-chars N] [--raw | --unpack]\nPrints a bounded slice (the notice goes to stderr); --lines 1200-1210 prints those lines (1-based, inclusive);\n--raw prints the whole original bytes; --unpack the lines a transcript reclaim stored, as written (parts put back).\nAn option the selector does not use is an error.\n${TAIL}`,
      run: fetchSlice,
    },
    peek: {
      options: { ...COMMON, "preview-chars": { type: "string" }, unverified: { type: "boolean" } },
      usage: `Usage: {prog} artifact peek HANDLE [--preview-chars N] [--unverified]\nMetadata and a short preview. --unverified shows the stored bytes of an artifact that fails its hash check (never served to a model).\n${TAIL}`,
      run: peek,
    },
    list: {
      options: {
        ...COMMON,
        limit: { type: "string" },
        session: { type: "string" },
        tool: { type: "string" },
        since: { type: "string" },
      },
      usage: `Usage: {prog} artifact list [--limit N] [--session KEY] [--tool NAME] [--since 12h]\nArtifacts of the agent, newest first; the totals go to stderr.\n${TAIL}`,
      run: runListCommand,
    },
    rm: {
      options: { ...COMMON },
      usage: `Usage: {prog} artifact rm HANDLE...\nRemoves artifacts (exit 2 when none existed).\n${TAIL}`,
      run: runRmCommand,
    },
    gc: {
      options: {
        ...COMMON,
        "dry-run": { type: "boolean" },
        "max-age": { type: "string" },
        "max-bytes": { type: "string" },
        "retire-gateway": { type: "string" },
      },
      usage: `Usage: {prog} artifact gc [--dry-run] [--max-age DURATION] [--max-bytes SIZE] [--retire-gateway ID]\nRemoves artifacts no ledger state references: older than --max-age (e.g. 30d; no age limit when absent)\nand/or beyond --max-bytes (e.g. 1G; default: the configured limits.maxStoreBytes), oldest first.\nOn a shared bucket: publishes this gateway's references first and removes only what no gateway cites,\nwhat every gateway has published since, and what is past store.s3.gcGraceMs; --retire-gateway forgets\na gateway that will never publish again (it then no longer blocks removals).\n${TAIL}`,
      run: runGcCommand,
    },
  };

const GROUP_USAGE = `Usage: {prog} artifact <command> [options]
  stash [FILE|-] [--kind K] [--format F]       store a file or stdin; prints the handle
  fetch HANDLE [--selector ...] [--raw]        a bounded slice, or the whole original
  peek HANDLE [--unverified]                   metadata and a short preview
  list [--session KEY] [--tool NAME] [--since 12h] [--limit N]   artifacts, newest first
  rm HANDLE...                                 remove artifacts
  gc [--dry-run] [--max-age AGE] [--max-bytes SIZE]   remove unreferenced artifacts (e.g. --max-age 30d; no default age)
  migrate --to s3|file [--all] [--dry-run]     copy the store into the bucket or back, verified, resumable
Run \`{prog} artifact <command> --help\` for one command's options.
${TAIL}`;

/**
 * `context-ledger artifact ...`. Exit codes: 0 ok, 1 usage error, 2 not
 * found, 3 corrupt (hash mismatch), 4 invalid handle, selector or pattern,
 * 5 any other failure. `--json` prints a receipt whose `schema` is one of
 * {@link ARTIFACT_SCHEMAS}, or the CLI's error document on failure.
 */
export async function runArtifactCommand(argv: string[], io: CliIo): Promise<number> {
  const commands = Object.fromEntries(
    Object.entries(LEAVES).map(([sub, leaf]) => [
      sub,
      (rest: string[], io2: CliIo) =>
        runCommand(
          rest,
          io2,
          { name: `artifact ${sub}`, options: leaf.options, usage: leaf.usage },
          async (args, json) => {
            const ctx = await operatorContextOf(args, io2.env);
            const agentId = stringFlag(args, "agent") ?? "main";
            const opened = openAgentStore({ config: ctx.config, ledgerRoot: ctx.ledgerRoot, agentId, env: io2.env });
            const store = opened.store;
            const { redaction } = resolveAgentSettings(ctx.config, agentId);
            const patterns = compileRedactPatterns(redaction.patterns);
            const c: ArtifactCommandContext = {
              args,
              io: io2,
              store,
              gateways: opened.gateways,
              agentId,
              ledgerRoot: ctx.ledgerRoot,
              agentDir: agentRoot(ctx.ledgerRoot, agentId),
              maxStoreBytes: ctx.config.limits.maxStoreBytes,
              json,
              redact: (text) => (redaction.enabled ? redactSecrets(text, patterns) : text),
            };
            try {
              const code = await leaf.run(c);
              // What this command stored reaches the bucket before it exits (a failure leaves it in the spool).
              await opened.finish();
              return code;
            } catch (err) {
              throw isLedgerError(err, "artifact_not_found")
                ? await notFoundHere(c, err, sub, ctx.config)
                : isLedgerError(err, "artifact_corrupt") && sub !== "peek"
                  ? corruptHint(c, err)
                  : err;
            }
          },
        ),
    ]),
  );
  // migrate opens two stores of its own (and maybe every agent's), not the one configured store of one agent.
  return runGroup(argv, io, {
    name: "artifact",
    usage: GROUP_USAGE,
    commands: { ...commands, migrate: runMigrateCommand },
  });
}

async function stash(c: ArtifactCommandContext): Promise<number> {
  const source = c.args.positionals[0] ?? "-";
  if (c.args.positionals.length > 1)
    throw new LedgerError("input_invalid", `Expected one FILE or -, got ${c.args.positionals.length} arguments`);
  const format = choiceFlag(c.args, "format", STASH_FORMATS);
  const bytes = source === "-" ? await readAll(c.io.stdin) : await fsp.readFile(source);
  const { handle, meta, created } = await c.store.stash(bytes, {
    kind: stringFlag(c.args, "kind") ?? "cli",
    format: format ?? detectFormat(bytes.subarray(0, 4_000_000).toString("utf8")),
    origin: { agentId: c.agentId },
  });
  if (c.json) writeReceipt(c.io, ARTIFACT_SCHEMAS.stash, { handle, created, agentId: c.agentId, source, meta });
  else c.io.stdout.write(`${handle}\n`);
  return 0;
}

async function fetchSlice(c: ArtifactCommandContext): Promise<number> {
  const handle = await handleInStore(c);
  if (c.args.flags.unpack) {
    c.io.stdout.write(await readReclaimedLines(c.store, handle));
    return 0;
  }
  if (c.args.flags.raw) {
    c.io.stdout.write(await c.store.read(handle));
    return 0;
  }
  const selector = selectorFrom(c.args);
  const slice = await c.store.select(handle, selector, { maxChars: intFlag(c.args, "max-chars", 1, 20_000) ?? 8_000 });
  if (c.json) writeReceipt(c.io, ARTIFACT_SCHEMAS.fetch, { handle, agentId: c.agentId, selector, ...slice });
  else {
    c.io.stdout.write(slice.text.endsWith("\n") || slice.text === "" ? slice.text : `${slice.text}\n`);
    c.io.stderr.write(`${slice.notice}\n`);
  }
  return 0;
}

async function peek(c: ArtifactCommandContext): Promise<number> {
  const handle = await handleInStore(c);
  const meta = await c.store.readMeta(handle);
  let text: string;
  let verified = true;
  try {
    text = await c.store.readText(handle);
  } catch (err) {
    if (!isLedgerError(err, "artifact_corrupt")) throw err;
    if (c.args.flags.unverified !== true) throw corruptHint(c, err);
    // The operator asked to look at bytes that fail verification: shown, labelled, never served to a model.
    // Bytes that do not decode are shown as stored (that is what --unverified is for).
    text = (await c.store.readUnverified(handle))?.toString("utf8") ?? "";
    verified = false;
  }
  // Redacted before the cut (see buildPreview), with the agent's own patterns.
  const preview = buildPreview(text, intFlag(c.args, "preview-chars", 50, 20_000) ?? 600, c.redact);
  if (c.json) writeReceipt(c.io, ARTIFACT_SCHEMAS.peek, { handle, agentId: c.agentId, verified, meta, preview });
  else {
    const o = meta.origin;
    c.io.stdout.write(
      [
        handle,
        ...(verified
          ? []
          : ["UNVERIFIED: these stored bytes fail the hash check; context-ledger never serves them to a model"]),
        `bytes ${meta.bytes} · lines ${meta.lines} · format ${meta.format} · kind ${meta.kind} · stored ${meta.storedBytes} (${meta.compression}) · created ${meta.createdAt}`,
        `origin: ${[o.toolName && `tool ${o.toolName}`, o.toolCallId && `call ${o.toolCallId}`, o.agentId && `agent ${o.agentId}`, o.sessionKey && `session ${o.sessionKey}`].filter(Boolean).join(", ") || "-"}`,
        "--- preview ---",
        preview,
        "",
      ].join("\n"),
    );
  }
  return 0;
}

/** The one argument's handle: whole, or 8+ hex digits that start one handle in the agent's store. */
function handleInStore(c: ArtifactCommandContext): Promise<string> {
  return resolveHandleRef(requireOne(c.args), () => listedHandles(c.store), {
    where: `in agent \`${c.agentId}\`'s store`,
  });
}

/** A not-found error that names the agent and store looked in, and where the handle lives if elsewhere. */
async function notFoundHere(
  c: ArtifactCommandContext,
  err: LedgerError,
  sub: string,
  config: LedgerConfig,
): Promise<CliFailure> {
  // fetch and peek take one handle, whole or a prefix; rm takes whole ones.
  const handle =
    c.args.positionals.find((p) => p.includes("sha256:")) ??
    (sub === "fetch" || sub === "peek" ? (c.args.positionals[0] ?? "") : "");
  const where = artifactRoot(c.ledgerRoot, c.agentId);
  const elsewhere: string[] = [];
  if (handle) {
    for (const agent of await listLedgerAgents(c.ledgerRoot)) {
      if (agent === c.agentId) continue;
      const other = openAgentStore({ config, ledgerRoot: c.ledgerRoot, agentId: agent, env: c.io.env });
      const held = await resolveHandleRef(handle, () => listedHandles(other.store))
        .then((h) => other.store.has(h))
        .catch(() => false)
        .finally(() => other.close());
      if (held) elsewhere.push(agent);
    }
  }
  const prog = progName(c.io);
  const hint =
    elsewhere.length > 0
      ? `${prog} artifact ${sub} ${handle} --agent ${elsewhere[0]}`
      : `${prog} artifact list --agent ${c.agentId}`;
  const message = `${handle ? `${handle} is` : "Expected artifacts, got none"} not in agent \`${c.agentId}\`'s store (${where})${elsewhere.length ? `; it is in agent ${elsewhere.map((a) => `\`${a}\``).join(", ")}'s store` : ""}`;
  return new CliFailure(err.code, handle ? message : err.message, EXIT.notFound, hint);
}

function corruptHint(c: ArtifactCommandContext, err: LedgerError): CliFailure {
  const handle = c.args.positionals[0] ?? "HANDLE";
  return new CliFailure(
    err.code,
    err.message,
    EXIT.corrupt,
    `${progName(c.io)} artifact peek ${handle} --unverified --agent ${c.agentId} (look), then \`${progName(c.io)} artifact rm ${handle} --agent ${c.agentId}\``,
  );
}

function selectorFrom(args: ParsedArgs): Selector {
  const raw = stringFlag(args, "selector");
  if (raw?.trim().startsWith("{")) {
    const parsed = parseJsonOrThrow(
      raw,
      "selector_invalid",
      (reason) => `Expected --selector to be a kind or a JSON object, got invalid JSON: ${reason}`,
    );
    return parseSelector(parsed);
  }
  // `--lines A-B` alone is the one line-range syntax every reader takes (the tool's `lines`, the chat's `lines A-B`).
  const lines = stringFlag(args, "lines");
  const range = raw === undefined && lines !== undefined ? parseLineRange(lines) : undefined;
  if (raw === undefined && lines !== undefined && !range)
    throw new LedgerError(
      "selector_invalid",
      `Expected --lines A-B (1-based, inclusive, e.g. --lines 1200-1210) or --selector head|tail with --lines N, got --lines ${lines}`,
    );
  const kind =
    raw ??
    (range
      ? "range"
      : stringFlag(args, "pattern")
        ? "grep"
        : stringFlag(args, "path")
          ? "json"
          : stringFlag(args, "start")
            ? "range"
            : "headtail");
  const num = (name: string) => {
    const v = stringFlag(args, name);
    return v === undefined ? undefined : /^\d+$/.test(v) ? Number(v) : v;
  };
  const candidate: Record<string, unknown> = { kind };
  const fields: Record<string, string[]> = {
    head: ["lines"],
    tail: ["lines"],
    grep: ["pattern", "flags", "context"],
    range: ["start", "end"],
    json: ["path"],
  };
  // A flag the selector does not use is an error, never silently ignored.
  const used = new Set(range ? ["lines"] : (fields[kind] ?? []));
  const unused = ["lines", "pattern", "flags", "context", "start", "end", "path"].filter(
    (f) => !used.has(f) && stringFlag(args, f) !== undefined,
  );
  if (unused.length > 0)
    throw new LedgerError(
      "selector_invalid",
      `Expected only the options of a ${kind} selector, got ${unused.map((f) => `--${f}`).join(", ")} (see --help)`,
    );
  if (range) return parseSelector({ kind: "range", ...range });
  for (const f of used) {
    const v = f === "pattern" || f === "flags" || f === "path" ? stringFlag(args, f) : num(f);
    if (v !== undefined) candidate[f] = v;
  }
  if (kind === "range" && candidate.end === undefined && typeof candidate.start === "number")
    candidate.end = candidate.start + 99;
  return parseSelector(candidate);
}

function requireOne(args: ParsedArgs): string {
  const [first, ...more] = args.positionals;
  if (first === undefined || more.length > 0) {
    throw new LedgerError("input_invalid", `Expected exactly one HANDLE, got ${args.positionals.length} arguments`);
  }
  return first;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer | string>)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
