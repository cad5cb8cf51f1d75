import { describe, expect, it } from "vitest";
import { agentIdFromSessionKey, isInternalSessionKey } from "./normalize.js";

describe("session keys", () => {
  it.each([
    "agent:main:internal-session-effects:run-1-0123456789abcdef",
    "agent:ops:internal-session-effects:incognito-run-2-0123456789abcdef",
    "agent:main:internal-session-effects:legacy-incognito-x-0123456789abcdef",
  ])("%s is a host-internal session", (key) => {
    expect(isInternalSessionKey(key)).toBe(true);
  });

  it.each([
    "agent:main:main",
    "agent:main:explicit:internal-session-effects:x",
    "agent:main:internal-notes",
    "agent:main:internal-session-effects",
    "agent:main:internal-hooks:x",
    "internal-session-effects:x",
    "session-1234",
  ])("%s is not a host-internal session", (key) => {
    expect(isInternalSessionKey(key)).toBe(false);
  });

  it("reads the agent id from `agent:<id>:…`, and none from another key", () => {
    expect(agentIdFromSessionKey("agent:ops:internal-session-effects:run")).toBe("ops");
    expect(agentIdFromSessionKey("session-1234")).toBeUndefined();
  });
});
