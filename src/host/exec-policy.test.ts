import { describe, expect, it } from "vitest";
import { execPolicyVerdict, strictestPolicy } from "./exec-policy.js";

const base = { toolName: "exec", params: { command: "ls" }, config: {}, agentId: "main", platform: "linux" as const };
const agentExec = (exec: Record<string, unknown>) => ({ agents: { list: [{ id: "main", tools: { exec } }] } });

describe("the wrapper's guard is as strict as the host", () => {
  it("a call carrying ask off under a config ask always is not wrapped", () => {
    const v = execPolicyVerdict({
      ...base,
      params: { command: "ls", ask: "off" },
      config: { tools: { exec: { ask: "always" } } },
    });
    expect(v).toEqual({ wrap: false, reason: "approvals (security full, ask always)" });
  });
  it("a call carrying security full under a config allowlist is not wrapped", () => {
    const v = execPolicyVerdict({
      ...base,
      params: { command: "ls", security: "full" },
      config: { tools: { exec: { security: "allowlist" } } },
    });
    expect(v).toEqual({ wrap: false, reason: "approvals (security allowlist, ask off)" });
  });
  it("an agent-level ask always is not lifted by the call or the global config", () => {
    const v = execPolicyVerdict({
      ...base,
      params: { command: "ls", ask: "off", security: "full" },
      config: { tools: { exec: { ask: "off", security: "full" } }, ...agentExec({ ask: "always" }) },
    });
    expect(v).toEqual({ wrap: false, reason: "approvals (security full, ask always)" });
  });
  it("a global ask always is not lifted by an agent-level ask off", () => {
    const config = { tools: { exec: { ask: "always" } }, ...agentExec({ ask: "off" }) };
    expect(execPolicyVerdict({ ...base, config }).wrap).toBe(false);
  });
  it("the host's approvals store asking or allowlisting keeps the call plain, whatever the config says", () => {
    const config = { tools: { exec: { security: "full", ask: "off" } } };
    expect(execPolicyVerdict({ ...base, config, approvals: { security: "full", ask: "on-miss" } }).wrap).toBe(false);
    expect(execPolicyVerdict({ ...base, config, approvals: { security: "allowlist", ask: "off" } }).wrap).toBe(false);
    expect(execPolicyVerdict({ ...base, config, approvals: { mode: "ask" } }).wrap).toBe(false);
    expect(execPolicyVerdict({ ...base, config, approvals: { security: "full", ask: "off" } }).wrap).toBe(true);
  });
  it("an approvals store that could not be read keeps the call plain", () => {
    expect(execPolicyVerdict({ ...base, approvals: "unreadable" })).toEqual({
      wrap: false,
      reason: "the host's exec approvals could not be read",
    });
  });
  it("strictInlineEval at any level keeps the call plain", () => {
    expect(execPolicyVerdict({ ...base, config: { tools: { exec: { strictInlineEval: true } } } }).wrap).toBe(false);
    expect(execPolicyVerdict({ ...base, config: agentExec({ strictInlineEval: true }) }).wrap).toBe(false);
    expect(execPolicyVerdict({ ...base, params: { command: "ls", strictInlineEval: true } }).wrap).toBe(true);
  });
  it("an exec mode other than full, at any level, keeps the call plain", () => {
    for (const mode of ["deny", "allowlist", "ask", "auto"]) {
      expect(execPolicyVerdict({ ...base, config: { tools: { exec: { mode } } } }).wrap, mode).toBe(false);
      expect(execPolicyVerdict({ ...base, config: agentExec({ mode }) }).wrap, mode).toBe(false);
    }
    expect(execPolicyVerdict({ ...base, config: { tools: { exec: { mode: "full" } } } }).wrap).toBe(true);
  });
  it("a value the hosts do not know is not guessed at", () => {
    expect(execPolicyVerdict({ ...base, params: { command: "ls", ask: "never" } })).toEqual({
      wrap: false,
      reason: "exec ask never",
    });
    expect(execPolicyVerdict({ ...base, config: { tools: { exec: { security: "yolo" } } } }).wrap).toBe(false);
    expect(execPolicyVerdict({ ...base, config: { tools: { exec: { mode: "trusted" } } } }).wrap).toBe(false);
  });
  it("a command the host asks about under any policy is not wrapped", () => {
    const command = "openclaw config set security.audit.suppressions '[]'";
    expect(execPolicyVerdict({ ...base, params: { command } }).wrap).toBe(false);
  });
  it("folds layers by the stricter, in any order", () => {
    const layers = [{ security: "allowlist" }, { ask: "on-miss" }, { security: "full", ask: "off" }];
    expect(strictestPolicy(layers)).toEqual({ security: "allowlist", ask: "on-miss" });
    expect(strictestPolicy([...layers].reverse())).toEqual({ security: "allowlist", ask: "on-miss" });
    expect(strictestPolicy([{ security: "deny" }, { mode: "full" }])).toEqual({ security: "deny", ask: "off" });
  });
});
