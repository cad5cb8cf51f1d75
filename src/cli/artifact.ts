import { formatHandle, parseHandle } from "../artifacts/handle.js";
import { parseSelector, selectSlice, type Selector } from "../artifacts/selectors.js";
import { createArtifactStore } from "../artifacts/store.js";
import { promises as fsp } from "node:fs";
import { errorMessage, isLedgerError, LedgerError, type LedgerErrorCode } from "../errors.js";
import { detectFormat } from "../results/detect-format.js";
import { buildPreview } from "../results/preview.js";
import { redactSecrets } from "../results/redact.js";
import { agentRoot, artifactRoot } from "../state/paths.js";
import { intFlag, parseArgv, stringFlag, type ArgSpec, type ParsedArgs } from "./args.js";
import { runGcCommand, runListCommand, runRmCommand } from "./artifact-admin.js";
import { ARTIFACT_SCHEMAS, writeReceipt, type ArtifactCommandContext } from "./artifact-receipts.js";
import { loadOperatorContext } from "./ops/host-config.js";
import type { CliIo } from "./run-cli.js";

export { ARTIFACT_SCHEMAS } from "./artifact-receipts.js";

const COMMON: ArgSpec = { agent: { type: "string" }, "state-dir": { type: "string" }, "openclaw-state": { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } };
const SPECS: Record<string, ArgSpec> = {
  stash: { ...COMMON, kind: { type: "string" }, format: { type: "string" } },
  fetch: { ...COMMON, selector: { type: "string" }, lines: { type: "string" }, pattern: { type: "string" }, flags: { type: "string" }, context: { type: "string" }, start: { type: "string" }, end: { type: "string" }, path: { type: "string" }, "max-chars": { type: "string" }, raw: { type: "boolean" } },
  peek: { ...COMMON, "preview-chars": { type: "string" } },
  list: { ...COMMON, limit: { type: "string" } },
  rm: { ...COMMON },
  gc: { ...COMMON, "dry-run": { type: "boolean" }, "max-age": { type: "string" }, "max-bytes": { type: "string" } },
};

const USAGE = `Usage: context-ledger artifact <command> [options]
  stash [FILE|-] [--kind K] [--format F]       store a file or stdin; prints the handle
  fetch HANDLE [--selector KIND|JSON] [--lines N] [--pattern RE --flags i --context N]
               [--start N --end N] [--path JSONPATH] [--max-chars N] [--raw]
  peek HANDLE [--preview-chars N]              metadata and a short preview
  list [--limit N]                             artifacts of the agent, newest first
  rm HANDLE...                                 remove artifacts
  gc [--dry-run] [--max-age 30d] [--max-bytes 1G]   remove unreferenced old artifacts
Options: --agent ID (default main), --state-dir DIR, --openclaw-state DIR, --json
Exit codes: 0 ok, 1 usage error, 2 not found, 3 corrupt, 4 invalid handle or selector, 5 other failure
`;

/**
 * `context-ledger artifact ...`. Exit codes: 0 ok, 1 usage error, 2 not
 * found, 3 corrupt (hash mismatch), 4 invalid handle, selector or pattern,
 * 5 any other failure. `--json` prints a receipt whose `schema` is one of
 * {@link ARTIFACT_SCHEMAS}; gc progress goes to stderr only on a TTY.
 */
export async function runArtifactCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === "--help" || sub === "-h" || sub === "help") {
    io.stdout.write(USAGE);
    return sub ? 0 : 1;
  }
  const spec = SPECS[sub];
  if (!spec) {
    io.stderr.write(`context-ledger artifact: unknown command \`${sub}\`; expected one of ${Object.keys(SPECS).join(", ")}\n${USAGE}`);
    return 1;
  }
  try {
    const args = parseArgv(rest, spec, `artifact ${sub}`);
    if (args.flags.help) {
      io.stdout.write(USAGE);
      return 0;
    }
    const ctx = await loadOperatorContext({ stateDir: stringFlag(args, "state-dir"), openclawState: stringFlag(args, "openclaw-state"), env: io.env });
    const agentId = stringFlag(args, "agent") ?? "main";
    const store = createArtifactStore({ root: artifactRoot(ctx.ledgerRoot, agentId) });
    const c: ArtifactCommandContext = { args, io, store, agentId, ledgerRoot: ctx.ledgerRoot, agentDir: agentRoot(ctx.ledgerRoot, agentId), maxStoreBytes: ctx.config.limits.maxStoreBytes, json: args.flags.json === true };
    switch (sub) {
      case "stash":
        return await stash(c);
      case "fetch":
        return await fetch(c);
      case "peek":
        return await peek(c);
      case "list":
        return await runListCommand(c);
      case "rm":
        return await runRmCommand(c);
      default:
        return await runGcCommand(c);
    }
  } catch (err) {
    const code = exitCodeFor(err);
    io.stderr.write(`context-ledger artifact ${sub}: ${errorMessage(err)}\n${code === 1 ? USAGE : ""}`);
    return code;
  }
}

/** Maps an error to the CLI exit code. */
export function exitCodeFor(err: unknown): number {
  if (!isLedgerError(err)) return 5;
  const table: Partial<Record<LedgerErrorCode, number>> = { input_invalid: 1, artifact_not_found: 2, artifact_corrupt: 3, handle_invalid: 4, selector_invalid: 4, pattern_refused: 4 };
  return table[err.code] ?? 5;
}

async function stash(c: ArtifactCommandContext): Promise<number> {
  const source = c.args.positionals[0] ?? "-";
  if (c.args.positionals.length > 1) throw new LedgerError("input_invalid", `Expected one FILE or -, got ${c.args.positionals.length} arguments`);
  const bytes = source === "-" ? await readAll(c.io.stdin) : await fsp.readFile(source);
  const format = stringFlag(c.args, "format") ?? detectFormat(bytes.subarray(0, 4_000_000).toString("utf8"));
  const { handle, meta, created } = await c.store.stash(bytes, { kind: stringFlag(c.args, "kind") ?? "cli", format, origin: { agentId: c.agentId } });
  if (c.json) writeReceipt(c.io, ARTIFACT_SCHEMAS.stash, { handle, created, agentId: c.agentId, source, meta });
  else c.io.stdout.write(`${handle}\n`);
  return 0;
}

async function fetch(c: ArtifactCommandContext): Promise<number> {
  const handle = formatHandle(parseHandle(requireOne(c.args)));
  if (c.args.flags.raw) {
    c.io.stdout.write(await c.store.read(handle));
    return 0;
  }
  const selector = selectorFrom(c.args);
  const text = await c.store.readText(handle);
  const slice = selectSlice(text, selector, { maxChars: intFlag(c.args, "max-chars", 1, 20_000) ?? 8_000 });
  if (c.json) writeReceipt(c.io, ARTIFACT_SCHEMAS.fetch, { handle, agentId: c.agentId, selector, ...slice });
  else {
    c.io.stdout.write(slice.text.endsWith("\n") || slice.text === "" ? slice.text : `${slice.text}\n`);
    c.io.stderr.write(`${slice.notice}\n`);
  }
  return 0;
}

async function peek(c: ArtifactCommandContext): Promise<number> {
  const handle = formatHandle(parseHandle(requireOne(c.args)));
  const meta = await c.store.readMeta(handle);
  const text = await c.store.readText(handle);
  const preview = redactSecrets(buildPreview(text, intFlag(c.args, "preview-chars", 50, 20_000) ?? 600));
  if (c.json) writeReceipt(c.io, ARTIFACT_SCHEMAS.peek, { handle, agentId: c.agentId, meta, preview });
  else {
    const o = meta.origin;
    c.io.stdout.write(
      [
        handle,
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

function selectorFrom(args: ParsedArgs): Selector {
  const raw = stringFlag(args, "selector");
  if (raw?.trim().startsWith("{")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      throw new LedgerError("selector_invalid", `Expected --selector to be a kind or a JSON object, got invalid JSON: ${(err as Error).message}`, { cause: err });
    }
    return parseSelector(parsed);
  }
  const kind = raw ?? (stringFlag(args, "pattern") ? "grep" : stringFlag(args, "path") ? "json" : stringFlag(args, "start") ? "range" : "headtail");
  const num = (name: string) => {
    const v = stringFlag(args, name);
    return v === undefined ? undefined : /^\d+$/.test(v) ? Number(v) : v;
  };
  const candidate: Record<string, unknown> = { kind };
  const fields: Record<string, string[]> = { head: ["lines"], tail: ["lines"], grep: ["pattern", "flags", "context"], range: ["start", "end"], json: ["path"] };
  for (const f of fields[kind] ?? []) {
    const v = f === "pattern" || f === "flags" || f === "path" ? stringFlag(args, f) : num(f);
    if (v !== undefined) candidate[f] = v;
  }
  if (kind === "range" && candidate.end === undefined && typeof candidate.start === "number") candidate.end = candidate.start + 99;
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
  for await (const chunk of stream as AsyncIterable<Buffer | string>) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
