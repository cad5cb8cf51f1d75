import type { ChatRunner } from "./core/chat-request.js";
import type { CliIo } from "./core/cli-io.js";

/** A command group's runner: `context-ledger <group> ...`. */
export type CliRunner = (argv: string[], io: CliIo) => Promise<number>;

/** How a command runs on the command line (`context-ledger <name>`, `openclaw context-ledger <name>`). */
export interface CliSurface {
  /** The arguments, shown before the summary; a group shows its subcommands instead. */
  args?: string;
  /** What it does, in the usage line. */
  summary: string;
  /** A group's subcommands: the group dispatches exactly these (a test checks it). */
  subcommands?: readonly string[];
  /** Loaded on use, so `context-ledger --help` stays instant. */
  load: () => Promise<CliRunner>;
}

/** How a command runs in a chat (`/ledger <name>`). */
export interface ChatSurface {
  /** The command as typed after `/ledger`, in the help. */
  args: string;
  /** What it does, in the help; a line break continues under the first line. */
  summary: string;
  load: () => Promise<ChatRunner>;
}

/** One operator command and the surfaces it runs on: the one list both the CLI and the chat command read. */
export interface LedgerCommand {
  name: string;
  cli?: CliSurface;
  chat?: ChatSurface;
}

/** Every operator command, in the order the help lists them. */
export const LEDGER_COMMANDS: readonly LedgerCommand[] = [
  {
    name: "status",
    cli: {
      args: "[--agent ID] [--session KEY] [--all] [--json]",
      summary: "budget, debt and artifacts per session",
      load: async () => (await import("./inspect/status.js")).runStatusCommand,
    },
    chat: {
      args: "status",
      summary: "budget, prompt, raw history and debt of this session",
      load: async () => (await import("./inspect/chat-status.js")).chatStatusText,
    },
  },
  {
    name: "view",
    cli: {
      args: "--session KEY [--turn N] [--json | --html PATH]",
      summary: "what the model saw last: kept, offloaded, summary, budget",
      load: async () => (await import("./inspect/view.js")).runViewCommand,
    },
    chat: {
      args: "view",
      summary: "what the model saw last: kept, offloaded, summary",
      load: async () => (await import("./inspect/chat-view.js")).chatViewText,
    },
  },
  {
    name: "fetch",
    chat: {
      args: "fetch HANDLE lines A-B",
      summary:
        "lines A to B of a stored output (also: head N, tail N, grep PATTERN);\nHANDLE may be its first 8+ hex digits, as stubs print them",
      load: async () => (await import("./artifacts/chat-fetch.js")).chatFetchText,
    },
  },
  {
    name: "grep",
    cli: {
      args: "PATTERN [--agent ID] [--session KEY] [--json]",
      summary: "search every stored artifact an agent may read",
      load: async () => (await import("./artifacts/grep.js")).runGrepCommand,
    },
  },
  {
    name: "artifact",
    cli: {
      summary: "the content-addressed artifact store",
      subcommands: ["stash", "fetch", "peek", "list", "rm", "gc", "migrate"],
      load: async () => (await import("./artifacts/artifact.js")).runArtifactCommand,
    },
  },
  {
    name: "session",
    cli: {
      summary: "pay down bloated JSONL session files losslessly; list or prune their backups",
      subcommands: ["clean", "backups"],
      load: async () => (await import("./sessions/session.js")).runSessionCommand,
    },
  },
  {
    name: "checkpoint",
    cli: {
      summary: "checkpoint packs sealed by compaction",
      subcommands: ["list", "show"],
      load: async () => (await import("./inspect/checkpoint.js")).runCheckpointCommand,
    },
  },
  {
    name: "export",
    cli: {
      args: "--session KEY --out DIR [--force] [--json]",
      summary: "the way out: a session's offloaded outputs as plain files, with an index",
      load: async () => (await import("./sessions/export.js")).runExportCommand,
    },
  },
  {
    name: "doctor",
    cli: {
      args: "[--fix] [--openclaw-bin PATH]",
      summary: "config, host, store permissions and artifact hashes",
      load: async () => (await import("./doctor/doctor.js")).runDoctorCommand,
    },
  },
];

/** The commands one surface runs, by name. */
export function commandsOn<S extends "cli" | "chat">(surface: S): Map<string, NonNullable<LedgerCommand[S]>> {
  const out = new Map<string, NonNullable<LedgerCommand[S]>>();
  for (const command of LEDGER_COMMANDS) {
    const entry = command[surface];
    if (entry) out.set(command.name, entry as NonNullable<LedgerCommand[S]>);
  }
  return out;
}
