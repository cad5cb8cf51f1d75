/**
 * Inputs shaped to make a backtracking regular expression or a naive scan go quadratic, and the built-in scans they
 * are run through. `test/reliability/bounded-work.test.ts` checks what the scans return on them; `npm run bench`
 * (section `bounded`, `bench/bounded-work.ts`) measures how long they take.
 */
import { detectFormat } from "../../src/results/detect-format.js";
import { buildPreview } from "../../src/results/preview.js";
import { redactSecrets } from "../../src/results/redact.js";
import { planSchemaStrip } from "../../src/results/strip-schema.js";
import { summarizeOutput } from "../../src/results/summarize-output.js";
import {
  codesIn,
  decisionSentences,
  errorLines,
  errorSentences,
  exitCodeIn,
  factSentences,
  firstSentences,
  handlesIn,
  pathsIn,
  stripLedgerBlocks,
} from "../../src/summary/extract-facts.js";

/** One megabyte of characters: the size of every adversarial input. */
export const MB = 1_000_000;

/** `unit` repeated to exactly `chars` characters. */
export const fill = (unit: string, chars = MB): string => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);

// Openings the built-in patterns key on; each is tried repeated, followed by a long run, and in between runs.
const SEEDS = [
  "exit code",
  "exited with status",
  'exitCode"',
  "return code",
  "password",
  "token:",
  "secret=",
  "Bearer ",
  "-----BEGIN RSA PRIVATE KEY-----",
  "-----BEGIN ",
  "sk-",
  "AKIA",
  "ghp_",
  "xoxb-",
  "eyJ",
  "[context-ledger summary",
  "[context-ledger artifact ",
  "ledger:v1:sha256:",
  "http://",
  "/a/",
  "a.",
  "./",
  "ERR_",
  "E",
  "error",
  "2026-11-22T03:00",
  "[INFO",
  "Jan 1",
  '{"a":',
  "[",
  '\\"',
  "a",
];
const RUNS = [" ", "\t", "a", "A", "0", "/", ".", "=", "-", "\n", '\\"'];

/** Every adversarial input of 1 MB, as [what it is, text]: 832 of them. */
export function* adversarialInputs(): Generator<[string, string]> {
  for (const seed of SEEDS) {
    // Led by "x " too: some scans short-cut on a leading marker.
    for (const lead of ["", "x "]) {
      yield [`${lead}${seed} repeated`, lead + fill(seed)];
      yield [`${lead}${seed} + spaces`, lead + seed + fill(" ", MB - seed.length)];
      for (const run of RUNS)
        yield [`${lead}(${seed} + ${JSON.stringify(run)}x64) repeated`, lead + fill(seed + run.repeat(64))];
    }
  }
}

/** The scans with built-in patterns that every tool output or message goes through: [name, run]. */
export const BUILT_IN_SCANS: ReadonlyArray<readonly [string, (text: string) => unknown]> = [
  ["redactSecrets", (t) => redactSecrets(t)],
  ["summarizeOutput", (t) => summarizeOutput(t, { toolName: "exec" })],
  ["detectFormat", (t) => detectFormat(t)],
  ["buildPreview", (t) => buildPreview(t)],
  ["planSchemaStrip", (t) => planSchemaStrip(t)],
  ["stripLedgerBlocks", (t) => stripLedgerBlocks(t)],
  [
    "extract-facts",
    (t) => ({
      first: firstSentences(t, 200),
      decisions: decisionSentences(t, 3),
      errors: errorSentences(t, 3),
      facts: factSentences(t, 3),
      handles: handlesIn(t),
      paths: pathsIn(t),
      codes: codesIn(t),
      errorLines: errorLines(t, 3, 200),
      exitCode: exitCodeIn(t),
    }),
  ],
];

/** A 1 MB tool output of each hostile kind, as [kind, text], for an assemble that must offload it. */
export function adversarialToolOutputs(): Array<[string, string]> {
  return [
    ["exit code + spaces", `exit code${fill(" ", MB - 9)}`],
    ["deep JSON", `${"[".repeat(MB / 2)}${"]".repeat(MB / 2)}`],
    ["deep objects", `${'{"a":'.repeat(MB / 12)}1${"}".repeat(MB / 12)}`],
    ["password runs", fill(`password${" ".repeat(64)}`)],
    ["private key openings", fill("-----BEGIN RSA PRIVATE KEY-----\n")],
    ["ledger summary openings", `x ${fill("[context-ledger summary ")}`],
    ["paths", fill("a/".repeat(64) + " ")],
    ["log-like", fill("2026-11-22T03:00 ")],
    ["quotes", fill('\\"')],
  ];
}

/** A grep pattern of stacked bounded quantifiers that backtracks without end on a long run of `a`. */
export const CATASTROPHIC_GREP = {
  pattern: "a{0,32}a{0,32}a{0,32}a{0,32}a{0,32}b",
  text: Array.from({ length: 3 }, () => "a".repeat(1_000)).join("\n"),
};
