import { PLUGIN_VERSION } from "../version.js";
import { renderUsage, unknownCommand } from "./core/command.js";
import { reportFailure } from "./core/cli-failure.js";
import type { CliIo } from "./core/cli-io.js";
import { wantsJson } from "./core/args.js";

export type { CliIo } from "./core/cli-io.js";

/** A command group: `context-ledger <group> ...`. */
type GroupRunner = (argv: string[], io: CliIo) => Promise<number>;

// Groups load lazily so `context-ledger --help` stays instant.
// `commands` lists a group's subcommands so a mistyped one at the top (`gcc`) can be pointed to it.
const GROUPS: Record<string, { summary: string; load: () => Promise<GroupRunner>; commands?: readonly string[] }> = {
  status: {
    summary: "[--agent ID] [--session KEY] [--all] [--json]   budget, debt and artifacts per session",
    load: async () => (await import("./inspect/status.js")).runStatusCommand,
  },
  view: {
    summary:
      "--session KEY [--turn N] [--json | --html PATH]   what the model saw last: kept, offloaded, summary, budget",
    load: async () => (await import("./inspect/view.js")).runViewCommand,
  },
  grep: {
    summary: "PATTERN [--agent ID] [--session KEY] [--json]   search every stored artifact an agent may read",
    load: async () => (await import("./artifacts/grep.js")).runGrepCommand,
  },
  artifact: {
    summary: "stash | fetch | peek | list | rm | gc | migrate   the content-addressed artifact store",
    load: async () => (await import("./artifacts/artifact.js")).runArtifactCommand,
    commands: ["stash", "fetch", "peek", "list", "rm", "gc"],
  },
  session: {
    summary: "clean [--dry-run] ...   pay down bloated JSONL session files losslessly",
    load: async () => (await import("./sessions/session.js")).runSessionCommand,
    commands: ["clean", "backups"],
  },
  checkpoint: {
    summary: "list | show   checkpoint packs sealed by compaction",
    load: async () => (await import("./inspect/checkpoint.js")).runCheckpointCommand,
    commands: ["list", "show"],
  },
  export: {
    summary:
      "--session KEY --out DIR [--force] [--json]   the way out: a session's offloaded outputs as plain files, with an index",
    load: async () => (await import("./sessions/export.js")).runExportCommand,
  },
  doctor: {
    summary: "[--fix] [--openclaw-bin PATH]   config, host, store permissions and artifact hashes",
    load: async () => (await import("./doctor/doctor.js")).runDoctorCommand,
  },
};

/** Usage text of the whole CLI. */
export function usage(io: Pick<CliIo, "prog"> = {}): string {
  const lines = Object.entries(GROUPS).map(([name, g]) => `  {prog} ${name.padEnd(11)} ${g.summary}`);
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
  for (const [name, g] of Object.entries(GROUPS)) for (const sub of g.commands ?? []) out[sub] ??= `${name} ${sub}`;
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
  const entry = GROUPS[group];
  if (!entry) {
    const err = unknownCommand(group, Object.keys(GROUPS), io.prog ?? "context-ledger", nestedCommands());
    return reportFailure(io, err, { command: "", json: wantsJson(rest) });
  }
  try {
    const run = await entry.load();
    return await run(rest, io);
  } catch (err) {
    return reportFailure(io, err, { command: group, json: wantsJson(rest) });
  }
}
