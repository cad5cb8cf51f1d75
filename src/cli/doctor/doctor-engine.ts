import { promises as fsp } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ENGINE_INFO } from "../../host/engine-info.js";
import type { DoctorFinding } from "./doctor-types.js";
import { readPackageJson } from "../core/package-json.js";
import { shellWord } from "../core/shell-word.js";

/** The npm package name, as its `package.json` says. */
const PACKAGE_NAME = "openclaw-context-ledger";

/** The host doctor's line this check explains (2026.9.x `openclaw doctor`). */
export const HOST_DOCTOR_READ_ONLY_WARNING =
  "is registered for read-only discovery; offline host compatibility inspection is unavailable";

/**
 * What `openclaw doctor` cannot check offline, checked here: 2026.8+ runs a
 * context engine only if it declares both transcript fences (and has
 * `commitTurn`), else it silently falls back to `legacy`. The host's doctor
 * loads plugins in discovery mode, where a non-bundled engine registers as
 * read-only and cannot be instantiated, so it prints the warning above for
 * every such engine; it does not mean the engine is missing in the gateway.
 */
export function checkEngineContract(): DoctorFinding {
  const ts = ENGINE_INFO.transcriptSemantics;
  const ok =
    ts.currentTurnFence === "before-current-turn-entry-v1" && ts.turnAdvancementIdempotency === "atomic-idempotent-v1";
  return {
    check: "engine",
    level: ok ? "ok" : "error",
    message: ok
      ? `declares currentTurnFence ${ts.currentTurnFence} and turnAdvancementIdempotency ${ts.turnAdvancementIdempotency} (what 2026.8+ requires to run it). \`openclaw doctor\`'s warning "context engine "context-ledger" ${HOST_DOCTOR_READ_ONLY_WARNING}" is expected for every non-bundled engine: the host's offline doctor cannot instantiate it, so this check does it instead; it does not mean the gateway lacks the engine`
      : `the engine does not declare the transcript fences 2026.8+ requires; the host would run legacy instead`,
  };
}

/** The folder name prefix of 2026.9.x's scratch copy of a plugin's source, removed once the plugin is loaded. */
const HOST_CAPTURE_PREFIX = "openclaw-plugin-build-";

/**
 * How to run this CLI without the host: the standalone entry of this package. It works when `openclaw.json` is
 * invalid (the host then refuses to start any command, `openclaw context-ledger ...` included). Inside 2026.9.x
 * this module may run from the host's scratch copy of the plugin, gone after the command: then the entry is taken
 * from `pluginDirs` (the folders the host loads the plugin from), and no path is printed when none holds it.
 */
export async function standaloneCommandFinding(
  pluginDirs: readonly string[] = [],
  self = fileURLToPath(new URL("../main.js", import.meta.url)),
): Promise<DoctorFinding> {
  const scratch = self.split(path.sep).some((part) => part.startsWith(HOST_CAPTURE_PREFIX));
  const candidates = [
    ...(scratch ? [] : [self]),
    ...pluginDirs.map((dir) => path.resolve(dir, "dist", "src", "cli", "main.js")),
  ];
  let main: string | undefined;
  for (const candidate of candidates) {
    if (await isOurEntry(candidate)) {
      main = candidate;
      break;
    }
  }
  // The host's installer leaves the package's files 0644, so the entry runs through `node`, never by itself.
  const how = main
    ? `\`node ${shellWord(main)} status\` (any command in place of status; for the short name, add to your shell's rc file: \`alias context-ledger="node ${shellWord(main)}"\`)`
    : "`node <plugin folder>/dist/src/cli/main.js status` (the `context-ledger` bin of the folder the host loads the plugin from)";
  return {
    check: "command",
    level: "info",
    message: `standalone: ${how}; it runs even when openclaw.json is invalid, which \`openclaw context-ledger\` cannot`,
  };
}

/** True when `file` exists inside a package named like this one. */
async function isOurEntry(file: string): Promise<boolean> {
  const exists = await fsp.stat(file).then(
    (st) => st.isFile(),
    () => false,
  );
  if (!exists) return false;
  const pkg = await readPackageJson(path.resolve(path.dirname(file), "..", "..", "..", "package.json"));
  return pkg?.name === PACKAGE_NAME;
}
