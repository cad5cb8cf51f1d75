import type { AgentSettings } from "../../../config/schema.js";
import { stubForText } from "../../../results/shape-tool-result.js";
import { compileRedactPatterns } from "../../../results/redact.js";

/** What the CLI knows about a payload it replaces by a stub. */
export interface CliStubInfo {
  toolName: string;
  exitCode?: number | null;
}

/**
 * The stub for a payload the CLI moved into the store: the engine's own stub
 * (same summary, preview and redaction rules), so cleaned transcripts read
 * like the engine's paydown.
 */
export function cliStub(
  handle: string,
  text: string,
  info: CliStubInfo,
  settings: Pick<AgentSettings, "offload" | "redaction">,
): string {
  return stubForText(handle, text, {
    toolName: info.toolName,
    limits: { previewChars: settings.offload.previewChars },
    exitCode: info.exitCode ?? null,
    redact: settings.redaction.enabled,
    redactPatterns: compileRedactPatterns(settings.redaction.patterns),
    offRamp: true,
  });
}
