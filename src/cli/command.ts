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
    const err = unknownCommand(sub, Object.keys(group.commands), `${progName(io)} ${group.name}`);
    return reportFailure(io, err, { command: group.name, json: wantsJson(rest), usage: renderUsage(io, group.usage) });
  }
  return run(rest, io);
}

/** The failure for a command word that is not one of `known`, with the nearest one suggested when it is close. */
export function unknownCommand(word: string, known: readonly string[], prefix: string): CliFailure {
  const near = closest(word, known);
  return new CliFailure(
    "input_invalid",
    `unknown command \`${word}\`; expected one of ${known.join(", ")}${near ? `. Did you mean \`${near}\`?` : ""}`,
    EXIT.usage,
    near ? `run \`${prefix} ${near}\`` : `run \`${prefix} --help\``,
  );
}

/** The known word within two edits of `word` (the first of the nearest), if any. */
function closest(word: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance <= 2 && (!best || distance < best.distance)) best = { word: candidate, distance };
  }
  return best?.word;
}

/** Levenshtein distance, two rows (command words are short). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length] as number;
}
