import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { exitQuietlyOnEpipe } from "./core/cli-io.js";
import { runCli, usage } from "./run-cli.js";

const DESCRIPTION = "context-ledger: status, view, grep, artifacts, session cleaning, doctor";

/**
 * Registers `openclaw context-ledger ...`: one root command that hands its raw
 * arguments to the plugin's own CLI, so both front ends behave identically
 * (usage lines say `openclaw context-ledger`, doctor knows the host it runs in).
 */
export function registerHostCli(api: OpenClawPluginApi): void {
  const prog = "openclaw context-ledger";
  api.registerCli(
    ({ program }) => {
      const cmd = program
        .command("context-ledger")
        .description(DESCRIPTION)
        .allowUnknownOption(true)
        .helpOption(false)
        .argument("[args...]", "context-ledger command and options")
        .action(async (args: string[]) => {
          exitQuietlyOnEpipe(process.stdout);
          exitQuietlyOnEpipe(process.stderr);
          const code = await runCli(args ?? [], {
            stdout: process.stdout,
            stderr: process.stderr,
            stdin: process.stdin,
            env: process.env,
            prog,
            ...(process.argv[1] ? { hostEntry: process.argv[1] } : {}),
          });
          process.exitCode = code;
        });
      cmd.addHelpText("after", `\n${usage({ prog })}`);
    },
    {
      commands: ["context-ledger"],
      descriptors: [{ name: "context-ledger", description: DESCRIPTION, hasSubcommands: true }],
    },
  );
}
