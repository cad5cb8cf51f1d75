import { listedHandles, resolveHandleRef, type ArtifactStore } from "../artifacts/index.js";

/** Who may read what: the stores an agent's fetch looks in, in order. */
export interface ArtifactScope {
  openStore: (agentId: string) => ArtifactStore;
  /** Other agents this agent may read (`"*"`, or a list that may contain `"*"`, means all). */
  readableAgents: (agentId: string) => readonly string[] | "*";
  /** Every agent with a store; needed only for `"*"`. @default () => [] */
  listAgents?: () => readonly string[] | Promise<readonly string[]>;
}

/** Where an artifact was found. */
export interface FoundArtifact {
  agentId: string;
  store: ArtifactStore;
}

/**
 * Looks for `handle` in the calling agent's store, then in the stores of the
 * agents it may read. Undefined when not found in any of them: an artifact of
 * an agent it may not read is indistinguishable from a missing one.
 */
export async function findArtifact(
  scope: ArtifactScope,
  agentId: string,
  handle: string,
): Promise<FoundArtifact | undefined> {
  for (const candidate of await scopeAgents(scope, agentId)) {
    const store = scope.openStore(candidate);
    if (await store.has(handle)) return { agentId: candidate, store };
  }
  return undefined;
}

/**
 * The handle `typed` stands for (whole, or a prefix of 8+ hex digits) among the artifacts of the
 * stores `agentId` may read; throws as `resolveHandleRef`.
 */
export async function resolveInScope(scope: ArtifactScope, agentId: string, typed: unknown): Promise<string> {
  const agents = await scopeAgents(scope, agentId);
  return resolveHandleRef(
    typed,
    async function* () {
      for (const agent of agents) yield* listedHandles(scope.openStore(agent));
    },
    { where: "readable by this agent" },
  );
}

async function scopeAgents(scope: ArtifactScope, agentId: string): Promise<string[]> {
  const readable = scope.readableAgents(agentId);
  const all = readable === "*" || readable.includes("*");
  const others = all ? await (scope.listAgents?.() ?? []) : readable;
  return [agentId, ...[...others].filter((a) => a !== agentId && a !== "*").sort()];
}
