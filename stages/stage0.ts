/**
 * stage0: the loop, with a single bash tool.
 *
 * A coding agent is a loop: the model reads the conversation, asks for tools, sees their
 * results, and repeats until it answers. This file is the whole program: a system prompt and
 * one tool. The loop itself is in shared/loop.ts, a few dozen lines: read it next.
 */
import { bashTool } from "../shared/bash.ts";
import { isProgram, main, type Stage } from "../shared/cli.ts";

// ─── System prompt ──────────────────────────────────────────────────────────────────────────

const ROLE = `You are a coding agent working in a terminal on the user's project.
Use your tools to look before you act: inspect files and run commands rather than guessing.
Work step by step until the task is done, then answer with a short summary of what you found or changed.`;

function systemPrompt(): string {
  return [
    ROLE,
  ].join("\n\n");
}

// ─── The stage ──────────────────────────────────────────────────────────────────────────────

export const stage: Stage = {
  name: "stage0",
  summary: "the agent loop with a single bash tool",
  start({ workspace }) {
    return {
      systemPrompt: systemPrompt(),
      tools: [
        bashTool(workspace),
      ],
    };
  },
};

if (isProgram(import.meta)) main(stage);
