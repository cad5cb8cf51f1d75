import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { fitsHostExecArgument, hostExecArgumentBytes, MAX_ARG_STRLEN, shellQuotedBytes } from "./exec-argument.js";
import { HOST_LINE_IDS, HOST_LINES, type ExecArgumentRule } from "./host-lines.js";

const ENV = { HOME: "/home/user", PATH: "/usr/local/bin:/usr/bin:/bin" };
const SNAPSHOT = `/home/user/.openclaw/cache/shell-snapshots/${"ab".repeat(32)}.sh`;

/** The hosts' `shQuote`. */
const shQuote = (v: string): string => `'${v.replace(/'/g, `'\\''`)}'`;

/**
 * The argument a host line builds, as its `bash-tools.exec-runtime-*` does with `tools.exec.pathPrepend` set and a
 * snapshot whose env matches the gateway's (no env lines to restore).
 */
function hostArgument(rule: ExecArgumentRule, command: string): string {
  const withPath = rule.pathPrependPrefix
    ? `export PATH="\${OPENCLAW_PREPEND_PATH}\${PATH:+:$PATH}"; unset OPENCLAW_PREPEND_PATH; ${command}`
    : command;
  if (!rule.snapshotEval) return withPath;
  return [`if [ -r ${shQuote(SNAPSHOT)} ]; then . ${shQuote(SNAPSHOT)}; fi`, `eval ${shQuote(withPath)}`].join("\n");
}

const bytes = (s: string): number => Buffer.byteLength(s);

describe("the host's exec argument", () => {
  it("counts a quote as the four bytes of '\\'' and the two around the word", () => {
    expect(shellQuotedBytes("it's")).toBe(bytes(shQuote("it's")));
    expect(shellQuotedBytes("'".repeat(16_000))).toBe(bytes(shQuote("'".repeat(16_000))));
  });

  it.each(HOST_LINE_IDS)("%s: counts at least what the host passes, and no more than its env lines over", (line) => {
    const rule = HOST_LINES[line].execArgument;
    const command = `printf '%s\\n' ${"'it''s' ".repeat(2_000)}; echo "é 漢字"`;
    const counted = hostExecArgumentBytes(command, { rule, env: ENV });
    const actual = bytes(hostArgument(rule, command));
    expect(counted).toBeGreaterThanOrEqual(actual);
    // The slack is the bound on env lines a snapshot may restore (one per known name) and the state folder's name.
    expect(counted - actual).toBeLessThan(rule.snapshotEval ? 700 : 1);
  });

  it("counts nothing of the snapshot when the operator turned it off", () => {
    const rule = HOST_LINES["2026.9"].execArgument;
    const off = hostExecArgumentBytes("echo 'x'", { rule, env: { ...ENV, OPENCLAW_EXEC_SHELL_SNAPSHOT: "off" } });
    expect(off).toBe(bytes(hostArgument({ ...rule, snapshotEval: false }, "echo 'x'")));
  });

  it("counts the longer value of an env name the call sets", () => {
    const rule = HOST_LINES["2026.9"].execArgument;
    const plain = hostExecArgumentBytes("true", { rule, env: ENV });
    const withEnv = hostExecArgumentBytes("true", { rule, env: ENV, callEnv: { PATH: "/x".repeat(5_000) } });
    expect(withEnv - plain).toBe(10_000 - ENV.PATH.length);
  });

  it("a quote-heavy command that fits plain on 2026.9 but not once grown does not count as fitting", () => {
    const rule = HOST_LINES["2026.9"].execArgument;
    // 16,000 quotes in 34 KB: 82 KB once the host quotes it; 16,000 quotes more pass the limit.
    const plain = `printf %s ${"''".repeat(8_000)} ${"x".repeat(18_000)}`;
    expect(fitsHostExecArgument(plain, { rule, env: ENV })).toBe(true);
    const grown = `${plain} ${"''".repeat(8_000)}`;
    expect(fitsHostExecArgument(grown, { rule, env: ENV })).toBe(false);
    expect(bytes(hostArgument(rule, grown))).toBeGreaterThanOrEqual(MAX_ARG_STRLEN);
  });

  it("a command counted as fitting starts in bash; one byte more than the kernel takes does not (E2BIG)", () => {
    const rule = HOST_LINES["2026.9"].execArgument;
    // The longest `: ''…` that counts as fitting, found by bisection on its pairs of quotes.
    let n = 0;
    for (let step = 1 << 15; step >= 1; step >>= 1)
      if (fitsHostExecArgument(`: ${"'".repeat(2 * (n + step))}`, { rule, env: ENV })) n += step;
    expect(fitsHostExecArgument(`: ${"'".repeat(2 * (n + 1))}`, { rule, env: ENV })).toBe(false);
    const fits = hostArgument(rule, `: ${"'".repeat(2 * n)}`);
    expect(spawnSync("bash", ["-c", fits.replace(SNAPSHOT, "/nonexistent")]).error).toBeUndefined();
    const tooLong = `: ${"x".repeat(MAX_ARG_STRLEN - 2)}`;
    expect(bytes(tooLong)).toBe(MAX_ARG_STRLEN);
    expect(spawnSync("bash", ["-c", tooLong]).error).toMatchObject({ code: "E2BIG" });
    expect(spawnSync("bash", ["-c", tooLong.slice(1)]).error).toBeUndefined();
  });
});
