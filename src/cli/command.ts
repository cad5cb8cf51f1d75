import { parseArgv, wantsHelp, wantsJson, type ArgSpec, type ParsedArgs } from "./args.js";
import { CliFailure, EXIT, reportFailure } from "./fail.js";
import { progName, type CliIo } from "./io.js";

/** One leaf command: its words, options and help text. */
export interface CommandSpec {
  /** Words after the program name, e.g. `artifact fetch`. */
  name: string;
  options: ArgSpec;
  /** Help text; `{prog}` stands for the program (`context-ledger` or `openclaw context-ledger`). */
  usage: string;
}

/** Help text with the program name filled in. */
export function renderUsage(io: Pick<CliIo, "prog">, usage: string): string {
  return usage.replaceAll("{prog}", progName(io));
}

/**
 * Runs one leaf command: `--help`/`-h` prints its help and runs nothing;
 * otherwise parses the options and calls `body`. Any error becomes the one
 * failure report (JSON document with `--json`) and its exit code.
 */
export async function runCommand(
  argv: readonly string[],
  io: CliIo,
  spec: CommandSpec,
  body: (args: ParsedArgs, json: boolean) => Promise<number>,
): Promise<number> {
  const json = wantsJson(argv);
  if (wantsHelp(argv)) {
    io.stdout.write(renderUsage(io, spec.usage));
    return 0;
  }
  try {
    const args = parseArgv(argv, spec.options, `${progName(io)} ${spec.name}`);
    return await body(args, json);
  } catch (err) {
    return reportFailure(io, err, { command: spec.name, json, usage: renderUsage(io, spec.usage) });
  }
}

/** Runs a group (`artifact`, `checkpoint`, `session`): dispatches its first word to a leaf command. */
export async function runGroup(
  argv: readonly string[],
  io: CliIo,
  group: { name: string; usage: string; commands: Record<string, (argv: string[], io: CliIo) => Promise<number>> },
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    io.stdout.write(renderUsage(io, group.usage));
    return sub === undefined ? 1 : 0;
  }
  const run = group.commands[sub];
  if (!run) {
    const err = new CliFailure(
      "input_invalid",
      `unknown command \`${sub}\`; expected one of ${Object.keys(group.commands).join(", ")}`,
      EXIT.usage,
      `run \`${progName(io)} ${group.name} --help\``,
    );
    return reportFailure(io, err, { command: group.name, json: wantsJson(rest), usage: renderUsage(io, group.usage) });
  }
  return run(rest, io);
}
