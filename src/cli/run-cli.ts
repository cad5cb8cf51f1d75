import { PLUGIN_VERSION } from "../version.js";
import { renderUsage, unknownCommand } from "./core/command.js";
import { reportFailure } from "./core/cli-failure.js";
import type { CliIo } from "./core/cli-io.js";
import { wantsJson } from "./core/args.js";
import { commandsOn } from "./command-table.js";

export type { CliIo } from "./core/cli-io.js";

const GROUPS = commandsOn("cli");

/** Usage text of the whole CLI. */
export function usage(io: Pick<CliIo, "prog"> = {}): string {
  const lines = [...GROUPS].map(
    ([name, g]) => `  {prog} ${name.padEnd(11)} ${g.subcommands?.join(" | ") ?? g.args ?? ""}   ${g.summary}`,
  );
  return renderUsage(
    io,
    `context-ledger ${PLUGIN_VERSION}\n\nUsage:\n${lines.join("\n")}\n\nCommon options: --state-dir DIR (default $OPENCLAW_STATE_DIR/context-ledger), --openclaw-state DIR, --agent ID (default main), --json, --help\n` +
      `Every command takes --help. Exit codes: 0 ok, 1 usage error, 2 not found, 3 corrupt, 4 invalid handle/selector/pattern, 5 other failure.\n` +
      `With --json, a failure prints {"ok":false,"error":{"code","message","exitCode","command","hint"}} on stdout.\n`,
  );
}

/** Every group's subcommand by its last word (the first group wins a shared word): `gc` → `artifact gc`. */
export function nestedCommands(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, g] of GROUPS) for (const sub of g.subcommands ?? []) out[sub] ??= `${name} ${sub}`;
  return out;
}

/**
 * Runs one CLI invocation and returns its exit code (0 ok, 1 usage error,
 * 2 not found, 3 corrupt, 4 invalid handle or selector, 5 other failure).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [group, ...rest] = argv;
  if (!group || group === "--help" || group === "-h" || group === "help") {
    io.stdout.write(usage(io));
    return group ? 0 : 1;
  }
  if (group === "--version" || group === "-v") {
    io.stdout.write(`${PLUGIN_VERSION}\n`);
    return 0;
  }
  const entry = GROUPS.get(group);
  if (!entry) {
    const err = unknownCommand(group, [...GROUPS.keys()], io.prog ?? "context-ledger", nestedCommands());
    return reportFailure(io, err, { command: "", json: wantsJson(rest) });
  }
  try {
    const run = await entry.load();
    return await run(rest, io);
  } catch (err) {
    return reportFailure(io, err, { command: group, json: wantsJson(rest) });
  }
}
