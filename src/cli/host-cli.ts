import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { runCli, usage } from "./run-cli.js";

/**
 * Registers `openclaw context-ledger ...`: one root command that hands its raw
 * arguments to the plugin's own CLI, so both front ends behave identically.
 */
export function registerHostCli(api: OpenClawPluginApi): void {
  api.registerCli(
    ({ program }) => {
      const cmd = program
        .command("context-ledger")
        .description("context-ledger: artifacts, debt status, session cleaning, doctor")
        .allowUnknownOption(true)
        .helpOption(false)
        .argument("[args...]", "context-ledger command and options")
        .action(async (args: string[]) => {
          const code = await runCli(args ?? [], { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
          process.exitCode = code;
        });
      cmd.addHelpText("after", `\n${usage()}`);
    },
    { commands: ["context-ledger"], descriptors: [{ name: "context-ledger", description: "context-ledger: artifacts, debt status, session cleaning, doctor", hasSubcommands: true }] },
  );
}
