import type { HostLineSemantics } from "../host/host-lines.js";
import type { HostGeneration, SessionIdentity } from "../host/normalize.js";
import type { RequestOverhead } from "./budget.js";

/** Inputs of one assemble call (`assembleView`). */
export interface AssembleViewInput {
  identity: SessionIdentity;
  messages: unknown;
  tokenBudget: unknown;
  model?: unknown;
  /** Which host line is calling (its budget means different things). */
  generation?: HostGeneration;
  /** The line's semantics; defaults to the row of `generation`. */
  semantics?: HostLineSemantics;
  /** The host config handed to the factory (model limits). */
  hostConfig?: unknown;
  /** The live user turn the host appends after the view (assemble's `prompt`). */
  prompt?: unknown;
  /** assemble's `runtimeSettings`. */
  runtimeSettings?: unknown;
  /** System prompt and tool schemas measured on the previous request, when known. */
  overhead?: RequestOverhead;
}
