import type { AgentSettings } from "../config/schema.js";
import { detectFormat } from "./detect-format.js";
import { overThreshold, type ShapeLimits } from "./shape-tool-result.js";

/** The shaping thresholds of an agent's settings (`offload` and `schemaStrip`). */
export function shapeLimitsOf(settings: AgentSettings): ShapeLimits {
  return {
    maxChars: settings.offload.maxChars,
    maxLines: settings.offload.maxLines,
    structuredMaxChars: settings.offload.structuredMaxChars,
    previewChars: settings.offload.previewChars,
    schemaKeys: settings.schemaStrip.enabled ? settings.schemaStrip.keys : [],
    maxFieldBytes: settings.schemaStrip.maxFieldBytes,
  };
}

/** True when the offload rule would move `text` out of the prompt. */
export function isOversized(text: string, settings: AgentSettings): boolean {
  return overThreshold(text, detectFormat(text), shapeLimitsOf(settings));
}
