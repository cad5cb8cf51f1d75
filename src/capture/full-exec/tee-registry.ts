import type { LedgerServices } from "../../runtime/services.js";
import { sameSession, type CaptureSession } from "../capture-index.js";
import { toolCallIdsMatch } from "../tool-call-id.js";
import { stateSlot } from "../../runtime/state-slots.js";
import type { TeeCapture } from "./stash-tee.js";

/** Where the tee registry lives: the process-wide registry. */
export type TeeRegistryDeps = Pick<LedgerServices, "processWide">;

/** One wrapped call whose output is being teed. */
export interface TeeEntry {
  file: string;
  toolCallId: string;
  agentId: string;
  sessionKey?: string;
  sessionId?: string;
  startedAt: number;
  /** When a command still running after its call returned (sent to the background) is given up on. */
  followUntil?: number;
}

/** A call taken out of the registry: `finish()` once its output is stored (or given up). */
export interface TakenTee {
  entry: TeeEntry;
  finish(): void;
}

/** The wrapped calls of this process, by call id, until their output is stored. */
export interface TeeRegistry {
  /**
   * Registers a wrapped call. The promise settles when its taker finishes, or after
   * {@link TEE_SETTLE_MAX_MS} (a call the host never reported back), so engine calls can wait on it.
   */
  add(entry: TeeEntry): Promise<void>;
  /** Removes and answers the entry of a call (same session; a call id the host may have rewritten). */
  take(toolCallId: string, session: CaptureSession): TakenTee | undefined;
  /** Tee files still expected (the sweep leaves them): calls not yet taken, and commands followed. */
  files(): Set<string>;
  /** Marks a taken call's file as followed (its command still runs) until `release`. */
  follow(file: string): { release(): void };
  /**
   * Registers the store under way of a taken call's output (`done`: what was stored, once the command has ended
   * and its file is stored or given up), so another asker of the same call can wait for it instead of finding
   * the call neither in the registry nor in the capture index. Forgotten once `done` settles.
   */
  storing(entry: TeeEntry, done: Promise<TeeCapture | undefined>): void;
  /** The store under way of a call's output (same session, a call id the host may have rewritten), if any. */
  whenStored(toolCallId: string, session: CaptureSession): Promise<TeeCapture | undefined> | undefined;
}

/** A tee file older than this whose call never reported back is removed. */
export const TEE_MAX_AGE_MS = 6 * 60 * 60 * 1000;
/** The longest an engine call's wait on a wrapped call can be kept up by it. */
const TEE_SETTLE_MAX_MS = 10 * 60 * 1000;

function createTeeRegistry(): TeeRegistry {
  const entries = new Map<string, { entry: TeeEntry; finish: () => void }>();
  const followed = new Set<string>();
  const stores = new Map<TeeEntry, Promise<TeeCapture | undefined>>();
  return {
    add(entry) {
      const now = Date.now();
      for (const [id, e] of entries) {
        if (now - e.entry.startedAt <= TEE_MAX_AGE_MS) continue;
        entries.delete(id);
        e.finish();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, TEE_SETTLE_MAX_MS);
        timer.unref?.();
        entries.set(entry.toolCallId, {
          entry,
          finish: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    take(toolCallId, session) {
      for (const [id, e] of entries) {
        if (toolCallIdsMatch(id, toolCallId) && sameSession(e.entry, session)) {
          entries.delete(id);
          return e;
        }
      }
      return undefined;
    },
    files: () => new Set([...[...entries.values()].map((e) => e.entry.file), ...followed]),
    follow(file) {
      followed.add(file);
      return { release: () => void followed.delete(file) };
    },
    storing(entry, done) {
      const settled = done.catch(() => undefined);
      stores.set(entry, settled);
      void settled.then(() => {
        if (stores.get(entry) === settled) stores.delete(entry);
      });
    },
    whenStored(toolCallId, session) {
      for (const [entry, done] of stores)
        if (toolCallIdsMatch(entry.toolCallId, toolCallId) && sameSession(entry, session)) return done;
      return undefined;
    },
  };
}

const TEE_REGISTRY = stateSlot("capture:tee", createTeeRegistry);

/** The runtime's registry of wrapped calls. */
export function teeRegistryOf(deps: TeeRegistryDeps): TeeRegistry {
  return deps.processWide.get(TEE_REGISTRY);
}
