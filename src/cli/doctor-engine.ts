import { fileURLToPath } from "node:url";
import { ENGINE_INFO } from "../host/engine-info.js";
import type { DoctorFinding } from "./doctor-types.js";

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

/**
 * How to run this CLI without the host: the standalone entry beside this
 * file. It works when `openclaw.json` is invalid (the host then refuses to
 * start any command, `openclaw context-ledger ...` included).
 */
export function standaloneCommandFinding(): DoctorFinding {
  const main = fileURLToPath(new URL("./main.js", import.meta.url));
  return {
    check: "command",
    level: "info",
    message: `standalone: \`node ${main} <command>\` (or put it on PATH: \`ln -s ${main} ~/.local/bin/context-ledger\`); it runs even when openclaw.json is invalid, which \`openclaw context-ledger\` cannot`,
  };
}
