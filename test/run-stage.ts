// Runs a stage program from source as a user would: its own process, no terminal. The pinned
// Node 24 runs the TypeScript directly (type stripping), with no loader process in between that
// would relay Ctrl-C a second time.
import { spawn } from "node:child_process";
import { join } from "node:path";

export interface Run { code: number | null; stdout: string; stderr: string }

export const NODE = join(import.meta.dirname, "..", "node_modules", ".bin", "node");
export const stageFile = (stage: string) => join(import.meta.dirname, "..", "stages", `${stage}.ts`);

/** Runs a stage from source as a user would, with no terminal and only the given model settings. */
export function runStage(stage: string, args: string[], env: Record<string, string>, stdin = ""): Promise<Run> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI_|AGENT_)/.test(k)));
  const child = spawn(NODE, [stageFile(stage), ...args], {
    env: { ...clean, NO_COLOR: "1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

