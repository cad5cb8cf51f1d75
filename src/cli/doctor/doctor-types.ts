/** One doctor finding. */
export interface DoctorFinding {
  /**
   * Which check produced it: `config`, `slot`, `agents`, `host`, `host-config`, `engine`, `command`,
   * `permissions`, `temp`, `orphans`, `artifacts`, `state`, `stubs`.
   */
  check: string;
  level: "ok" | "info" | "warn" | "error";
  message: string;
  /** The file or folder concerned. */
  path?: string;
  /** True when `--fix` repaired it (the message says how). */
  fixed?: boolean;
  /** True for corrupt data (exit code 3 when left unrepaired). */
  corrupt?: boolean;
}
