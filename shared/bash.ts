// The bash tool: one shell command, run in its own process group with no input, a timeout
// that kills the whole group, output kept to a budget, and an environment without secrets.
import { spawn } from "node:child_process";
import * as z from "zod";
import { destructiveReason } from "./destructive.ts";
import { OutputClip } from "./output.ts";
import { sandboxed, type SandboxAccess } from "./sandbox.ts";
import { defineTool, type Tool } from "./tools.ts";
import type { Workspace } from "./workspace.ts";

export const DEFAULT_TIMEOUT_S = 120;
export const MAX_TIMEOUT_S = 600;

const schema = z.object({
  command: z.string().min(1).describe("The shell command to run, e.g. `ls -la` or `npm test`."),
  timeout: z.number().positive().optional()
    .describe(`Seconds before the command is killed (default ${DEFAULT_TIMEOUT_S}, at most ${MAX_TIMEOUT_S}).`),
});

export function bashTool(workspace: Workspace): Tool {
  return defineTool({
    name: "bash",
    description:
      "Run a bash command in the workspace and get its output (stdout and stderr together) and exit code. " +
      "The command has no input (no interactive programs) and is killed after its timeout.",
    schema,
    risky: true,
    refuse: ({ command }) => destructiveReason(command),
    run: ({ command, timeout }, { signal }) =>
      runCommand(command, {
        cwd: workspace.root,
        signal,
        timeoutMs: Math.min(timeout ?? DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S) * 1000,
        sandbox: workspace.sandbox ? "read-write" : undefined,
      }),
  });
}

export interface RunOptions {
  cwd: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** Run under bubblewrap with this access to the workspace (--sandbox). */
  sandbox?: SandboxAccess;
}

/** Longer commands do not fit in an argument list; a script file does. */
export const MAX_COMMAND_BYTES = 100_000;

export function runCommand(command: string, { cwd, signal, timeoutMs, sandbox }: RunOptions): Promise<string> {
  const bytes = Buffer.byteLength(command);
  if (bytes > MAX_COMMAND_BYTES) {
    return Promise.resolve(`Error: the command is ${bytes} bytes, more than the ${MAX_COMMAND_BYTES} a command may have. Write a script with write_file and run that. Nothing was run.`);
  }
  const { file, args } = sandbox ? sandboxed(command, cwd, sandbox) : { file: "bash", args: ["-c", command] };
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd,
      env: withoutSecrets(process.env),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group, so a kill reaches every process it started
    });
    const output = new OutputClip();
    let stopped = "";
    const killGroup = (why: string) => {
      stopped ||= why;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => killGroup(`killed after the ${timeoutMs / 1000} s timeout`), timeoutMs);
    const onAbort = () => killGroup("cancelled by the user");
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();

    child.stdout.setEncoding("utf8").on("data", (chunk: string) => output.add(chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => output.add(chunk));
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve(`Error: could not start ${file}: ${error.message}`);
    });
    child.on("close", (code, signalName) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      const text = output.toString().trimEnd();
      const status = stopped ? `[${stopped}]` : signalName ? `[killed by ${signalName}]` : `[exit code ${code}]`;
      resolve(text ? `${text}\n${status}` : `${status} (no output)`);
    });
  });
}

/** The model's commands never see the API key or anything that looks like a secret. */
export function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const isSecret = (name: string) => name === "OPENAI_API_KEY" || /_(KEY|TOKEN|SECRET|PASSWORD)$/i.test(name);
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isSecret(name)));
}
