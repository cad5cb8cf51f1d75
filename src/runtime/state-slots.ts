/**
 * State that lives as long as a runtime, never in a module: a module declares a typed slot for its cache or
 * queue, and reads it through the runtime it was handed. The slot is the key, so no string names collide and
 * the type travels with it; a second runtime (another config or state dir in the same process) starts clean.
 */
import { processWideKey } from "../version.js";

/** One piece of runtime state: its type, a name for the process-wide registry, and how to make it. */
export interface StateSlot<T> {
  /** Unique among the plugin's slots; the key of the process-wide registry (stable across module copies). */
  readonly name: string;
  readonly create: () => T;
}

/** Declares a slot (at module level: the slot is a key, its state lives in each runtime). */
export function stateSlot<T>(name: string, create: () => T): StateSlot<T> {
  return { name, create };
}

/** A runtime's state, by slot: the value is made on first use. */
export interface StateRegistry {
  get<T>(slot: StateSlot<T>): T;
}

/** State owned by one runtime object, keyed by the slot itself. */
export function createStateRegistry(): StateRegistry {
  const values = new Map<StateSlot<unknown>, unknown>();
  return {
    get<T>(slot: StateSlot<T>): T {
      if (!values.has(slot)) values.set(slot, slot.create());
      return values.get(slot) as T;
    },
  };
}

const PROCESS_WIDE = processWideKey("process-wide");

/**
 * State shared with every copy of the plugin's modules in this process that uses the same state root, keyed by
 * the slot's name: 2026.9.6 loads the plugin twice (its `full` and `discovery` registrations), and its hooks and
 * its engine may come from different copies. For plain coordination state only (no classes: `instanceof`
 * differs between copies).
 */
export function createProcessWideRegistry(root: string): StateRegistry {
  const g = globalThis as { [PROCESS_WIDE]?: Map<string, unknown> };
  return {
    get<T>(slot: StateSlot<T>): T {
      const shared = (g[PROCESS_WIDE] ??= new Map());
      const key = `${root}\u0000${slot.name}`;
      if (!shared.has(key)) shared.set(key, slot.create());
      return shared.get(key) as T;
    },
  };
}
