import { PLUGIN_VERSION } from "../version.js";

/** Streams and environment a command runs with (injectable for tests). */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

/** A command group: `context-ledger <group> ...`. */
type GroupRunner = (argv: string[], io: CliIo) => Promise<number>;

// Groups load lazily so `context-ledger --help` stays instant.
const GROUPS: Record<string, { summary: string; load: () => Promise<GroupRunner> }> = {
  artifact: {
    summary: "stash | fetch | peek | list | rm | gc   the content-addressed artifact store",
    load: async () => (await import("./artifact.js")).runArtifactCommand,
  },
  status: {
    summary: "[--agent ID] [--session KEY] [--json]   budget, debt and artifacts per session",
    load: async () => (await import("./status.js")).runStatusCommand,
  },
  session: {
    summary: "clean [--dry-run] ...   pay down bloated JSONL session files losslessly",
    load: async () => (await import("./session.js")).runSessionCommand,
  },
  checkpoint: {
    summary: "list | show   checkpoint packs sealed by compaction",
    load: async () => (await import("./checkpoint.js")).runCheckpointCommand,
  },
  doctor: {
    summary: "[--fix]   config, host selection, store permissions and artifact hashes",
    load: async () => (await import("./doctor.js")).runDoctorCommand,
  },
};

/** Usage text of the whole CLI. */
export function usage(): string {
  const lines = Object.entries(GROUPS).map(([name, g]) => `  context-ledger ${name.padEnd(11)} ${g.summary}`);
  return `context-ledger ${PLUGIN_VERSION}\n\nUsage:\n${lines.join("\n")}\n\nCommon options: --state-dir DIR (default $OPENCLAW_STATE_DIR/context-ledger), --agent ID (default main), --json\n`;
}

/**
 * Runs one CLI invocation and returns its exit code (0 ok, 1 usage error,
 * 2 not found, 3 corrupt, 4 invalid handle or selector, 5 other failure).
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [group, ...rest] = argv;
  if (!group || group === "--help" || group === "-h" || group === "help") {
    io.stdout.write(usage());
    return group ? 0 : 1;
  }
  if (group === "--version" || group === "-v") {
    io.stdout.write(`${PLUGIN_VERSION}\n`);
    return 0;
  }
  const entry = GROUPS[group];
  if (!entry) {
    io.stderr.write(`context-ledger: unknown command \`${group}\`; expected one of ${Object.keys(GROUPS).join(", ")}\n\n${usage()}`);
    return 1;
  }
  try {
    const run = await entry.load();
    return await run(rest, io);
  } catch (err) {
    io.stderr.write(`context-ledger ${group}: ${(err as Error).message}\n`);
    return 5;
  }
}
