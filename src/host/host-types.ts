/**
 * The engine contract as the host's own package declares it (the `openclaw` dev
 * dependency; type-only, so nothing is imported at run time). `npm run typecheck`
 * checks the engine object against it: a host contract change fails `tsc`.
 */
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";

/** What `registerContextEngine`'s factory must return. */
export type HostContextEngine = Awaited<ReturnType<Parameters<OpenClawPluginApi["registerContextEngine"]>[1]>>;

/** What `assemble()` must resolve to. */
export type HostAssembleResult = Awaited<ReturnType<HostContextEngine["assemble"]>>;

/** One message of the host's transcript. */
export type HostAgentMessage = HostAssembleResult["messages"][number];

/**
 * The host's assemble result for an engine view: the view's own fields, its messages
 * typed as the host's. They are the host's own transcript messages or shaped copies of
 * them (same roles and block kinds): this is the one place where the engine's `unknown`
 * messages meet the host's type.
 */
export function asHostResult<V extends { messages: readonly unknown[] }>(
  view: V,
): Omit<V, "messages"> & { messages: HostAgentMessage[] } {
  return { ...view, messages: view.messages as HostAgentMessage[] };
}

/**
 * What context-ledger's assemble() resolves to: the host's result, plus the ledger's own reading for logs and tests.
 */
export type LedgerAssembleResult = HostAssembleResult & { ledger?: unknown };
