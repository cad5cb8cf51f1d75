import { parseArgv, wantsHelp, wantsJson, type ArgSpec, type ParsedArgs } from "./args.js";
import { CliFailure, EXIT, reportFailure } from "./cli-failure.js";
import { progName, type CliIo } from "./cli-io.js";
import { closestWord } from "./closest-word.js";

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
    const err = unknownCommand(sub, Object.keys(group.commands), `${progName(io)} ${group.name}`);
    return reportFailure(io, err, { command: group.name, json: wantsJson(rest), usage: renderUsage(io, group.usage) });
  }
  return run(rest, io);
}

/**
 * The failure for a command word that is not one of `known`, with the nearest one suggested when it is close.
 * `nested` maps words of subcommands to their full command (`gc` to `artifact gc`), suggested when no
 * word of `known` is close: an operator who types `gcc` means `artifact gc`.
 */
export function unknownCommand(
  word: string,
  known: readonly string[],
  prefix: string,
  nested: Readonly<Record<string, string>> = {},
): CliFailure {
  const leaf = closestWord(word, Object.keys(nested));
  const near = closestWord(word, known) ?? (leaf === undefined ? undefined : nested[leaf]);
  return new CliFailure(
    "input_invalid",
    `unknown command \`${word}\`; expected one of ${known.join(", ")}${near ? `. Did you mean \`${near}\`?` : ""}`,
    EXIT.usage,
    near ? `run \`${prefix} ${near}\`` : `run \`${prefix} --help\``,
  );
}
