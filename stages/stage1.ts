/**
 * stage1: real tools with schemas, and the workspace they work in.
 *
 * bash can do anything, but a model that edits files through `sed` and `echo >` makes mistakes
 * it cannot see. stage1 adds three file tools with zod schemas (shared/file-tools.ts): reading
 * with line numbers, writing whole files, and exact one-place edits. Each path is kept inside
 * the workspace (shared/workspace.ts). The system prompt now tells the model where it is.
 */
import { bashTool } from "../shared/bash.ts";
import { isProgram, main, type Stage } from "../shared/cli.ts";
// #region workspace-context (stage1)
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { editFileTool, readFileTool, writeFileTool } from "../shared/file-tools.ts";
// #endregion

// ─── System prompt ──────────────────────────────────────────────────────────────────────────

const ROLE = `You are a coding agent working in a terminal on the user's project.
Use your tools to look before you act: inspect files and run commands rather than guessing.
Work step by step until the task is done, then answer with a short summary of what you found or changed.`;

// #region workspace-context (stage1)
const FILE_TOOLS = `Use read_file to read files (not cat), edit_file to change part of a file, and write_file
to create a file or replace it whole. Paths are relative to the workspace; nothing outside it can be touched.`;

const AGENTS_MD_LIMIT = 4000;

/** Where the model is: the workspace, the platform, the date, git, and the project's AGENTS.md. */
function environment(root: string): string {
  const lines = [`# Environment`, `Workspace: ${root}`, `Platform: ${process.platform}`, `Date: ${new Date().toISOString().slice(0, 10)}`];
  const branch = git(root, "branch", "--show-current");
  if (branch !== undefined) {
    const changes = git(root, "status", "--short")?.split("\n").filter(Boolean) ?? [];
    lines.push(`Git branch: ${branch || "(detached)"}, ${changes.length} changed files`, ...changes.slice(0, 20));
  }
  const agents = readOptional(join(root, "AGENTS.md"));
  if (agents !== undefined) {
    const clipped = agents.length > AGENTS_MD_LIMIT ? agents.slice(0, AGENTS_MD_LIMIT) + "\n[AGENTS.md clipped]" : agents;
    lines.push("", "# AGENTS.md (the project's instructions for agents)", clipped.trim());
  }
  return lines.join("\n");
}

function git(cwd: string, ...args: string[]): string | undefined {
  try {
    return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 2000 }).trim();
  } catch {
    return undefined;
  }
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
// #endregion

function systemPrompt(root: string): string {
  return [
    ROLE,
    FILE_TOOLS,
    environment(root),
  ].join("\n\n");
}

// ─── The stage ──────────────────────────────────────────────────────────────────────────────

export const stage: Stage = {
  name: "stage1",
  summary: "real tools (bash, read_file, write_file, edit_file) in a workspace",
  start({ workspace }) {
    return {
      systemPrompt: systemPrompt(workspace.root),
      tools: [
        bashTool(workspace),
        readFileTool(workspace),
        writeFileTool(workspace),
        editFileTool(workspace),
      ],
    };
  },
};

if (isProgram(import.meta)) main(stage);
