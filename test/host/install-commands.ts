/**
 * How an operator installs the packed plugin on each host line: the one source the
 * install-path test runs and the docs are checked against (test/docs/install-commands.test.ts).
 * Read from each line's installer and proven by test/host/install-path.test.ts.
 */
import { HANDLE_PREFIX } from "../../src/artifacts/index.js";
import { uninstalledFetchCommand } from "../../src/results/stub.js";
import { PACKED_TARBALL as PACKED_FILE } from "../../src/version.js";
import { markdownShellCommands } from "../support/pasted-commands.js";
import { HOST_LINES, type HostVersion } from "./host-install.js";

/** The tarball `npm pack` makes, as the docs name it. */
export const PACKED_TARBALL = `./${PACKED_FILE}`;

/** The npm package name, for the registry form. */
export const PACKAGE_NAME = "openclaw-context-ledger";

/**
 * The flags `openclaw plugins install` needs on each line for a package from a path or the npm registry. 2026.8.2
 * and later ask for two confirmations a non-interactive run must give as flags: `--force` ("Confirm non-ClawHub
 * sources"; without it: "Install cancelled; rerun with --force after reviewing the source") and
 * `--accept-capabilities` (the plugin's declared capabilities; without it: "requires capability consent").
 * Never `--dangerously-force-unsafe-install`: the package passes every line's scanner (test/host/install-scan.test.ts).
 */
export const INSTALL_FLAGS: Readonly<Record<HostVersion, readonly string[]>> = {
  "2026.4.24": [],
  "2026.5.28": [],
  "2026.6.11": [],
  "2026.7.35": [],
  "2026.8.2": ["--force", "--accept-capabilities"],
  "2026.9.6": ["--force", "--accept-capabilities"],
};

/** The exact command a line's operator runs for `source` (the packed tarball by default). */
export function installCommand(version: HostVersion, source: string = PACKED_TARBALL): string {
  return ["openclaw", "plugins", "install", source, ...INSTALL_FLAGS[version]].join(" ");
}

/**
 * `openclaw plugins inspect context-ledger --json` as the docs give it: with `--runtime` (load the plugin, so its
 * engine registers) from 2026.5.28 on; 2026.4.24 has no such option and loads the runtime anyway.
 */
export function inspectArgs(version: HostVersion): string[] {
  return ["plugins", "inspect", "context-ledger", ...(version === "2026.4.24" ? [] : ["--runtime"]), "--json"];
}

/**
 * What `openclaw plugins install openclaw-context-ledger` (the registry form) does on each line, read from its
 * installer. Every line resolves a bare name to the npm registry (2026.4.24 asks ClawHub first and falls back to
 * npm when ClawHub has no such package); 2026.4.24 and 2026.5.28 run the same code scanner over it as over a
 * tarball. The flags are those of {@link INSTALL_FLAGS}.
 */
export const REGISTRY_FORM: Readonly<Record<HostVersion, string>> = {
  "2026.4.24": "ClawHub first (clawhub:openclaw-context-ledger), then npm when ClawHub has no such package",
  "2026.5.28": "npm",
  "2026.6.11": "npm (clawhub:<name> only when written so)",
  "2026.7.35": "npm (clawhub:<name> only when written so)",
  "2026.8.2": "npm, a non-ClawHub source: needs --force and --accept-capabilities",
  "2026.9.6": "npm, a non-ClawHub source: needs --force and --accept-capabilities",
};

/**
 * What a document gets wrong about installing: a line whose command it does not give, and every `openclaw plugins
 * install` command of its shell blocks that is no line's command (a flag too many or too few, the forbidden
 * `--dangerously-force-unsafe-install`).
 */
export function documentedInstallDrift(markdown: string): string[] {
  const problems: string[] = [];
  for (const version of HOST_LINES)
    if (!markdown.includes(installCommand(version)))
      problems.push(`${version}: \`${installCommand(version)}\` missing`);
  const known = new Set(Object.values(INSTALL_FLAGS).map((flags) => flags.join(" ")));
  for (const command of markdownShellCommands(markdown)) {
    const m = /^openclaw plugins install (\S+)((?: --[\w-]+)*)$/.exec(command);
    if (!m || m[1] === "-l") continue;
    if (!known.has((m[2] ?? "").trim())) problems.push(`\`${command}\` is no line's command`);
  }
  return problems;
}

/**
 * How an operator uninstalls the plugin, the gateway stopped first, the same on 2026.4.24 as on 2026.9.6: `--force`
 * answers the confirmation prompt, which a run without a terminal (a script, CI, an agent's shell) cannot ("plugins
 * uninstall requires confirmation input. Re-run in an interactive TTY or pass --force"); 2026.4.24 leaves the slot
 * naming the removed engine (2026.9.6 resets it), so the second command puts `legacy` back. Proven by
 * test/host/install-path.test.ts.
 */
export const UNINSTALL_STEPS: readonly (readonly string[])[] = [
  ["plugins", "uninstall", "context-ledger", "--force"],
  ["config", "set", "plugins.slots.contextEngine", "legacy"],
];

/** {@link UNINSTALL_STEPS} as the guide prints them. */
export const UNINSTALL_COMMANDS: readonly string[] = UNINSTALL_STEPS.map((args) => `openclaw ${args.join(" ")}`);

/** The guide's example handle (its short form `3f2a9c0d1b4e`). */
const GUIDE_HANDLE = `${HANDLE_PREFIX}3f2a9c0d1b4e${"0".repeat(52)}`;

/** The guide's example of a stub's fallback command, as a stub prints it for the example handle. */
export const GUIDE_FETCH_COMMAND = uninstalledFetchCommand(GUIDE_HANDLE);

/**
 * What a document gets wrong about the way out: the uninstall command or the stubs' fallback command missing from its
 * shell blocks, and any `openclaw plugins uninstall` or `npx … context-ledger` command there but the proven one.
 */
export function documentedUninstallDrift(markdown: string): string[] {
  const problems: string[] = [];
  const commands = markdownShellCommands(markdown);
  for (const wanted of [...UNINSTALL_COMMANDS, GUIDE_FETCH_COMMAND])
    if (!commands.includes(wanted)) problems.push(`\`${wanted}\` missing from the shell blocks`);
  const npxPrefix = GUIDE_FETCH_COMMAND.slice(
    0,
    GUIDE_FETCH_COMMAND.indexOf(" context-ledger ") + " context-ledger ".length,
  );
  for (const command of commands) {
    if (command.startsWith("openclaw plugins uninstall") && command !== UNINSTALL_COMMANDS[0])
      problems.push(`\`${command}\` is not the proven uninstall command`);
    if (/^npx .*context-ledger/.test(command) && !command.startsWith(npxPrefix))
      problems.push(`\`${command}\` does not run the tarball as the stubs say (\`${npxPrefix}…\`)`);
  }
  return problems;
}
