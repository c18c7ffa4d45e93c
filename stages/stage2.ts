/**
 * stage2: planning, with a todo list the model keeps itself, and reminders to keep it.
 *
 * On a task of many steps a model loses track of what it did and what is left. stage2 adds
 * the smallest structure that fixes this: a TodoWrite tool that takes the whole plan every time
 * (with rules: one step in progress, no duplicates, at most 20), the plan shown to the user as
 * it changes, and reminders appended to the conversation (never edited into it) when the model
 * forgets to plan or goes several rounds without updating its plan.
 */
import { bashTool } from "../shared/bash.ts";
import { isProgram, main, type Stage } from "../shared/cli.ts";
// #region workspace-context (stage1)
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { editFileTool, readFileTool, writeFileTool } from "../shared/file-tools.ts";
// #endregion
// #region planning (stage2)
import * as z from "zod";
import type { PlanItem } from "../shared/loop.ts";
import type { Message } from "../shared/messages.ts";
import { defineTool, type Tool } from "../shared/tools.ts";
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

// #region planning (stage2)
const PLANNING = `For a task of several steps, keep a plan with TodoWrite: list the steps, mark one in_progress
before you start it and completed as soon as it is done, and send the whole list every time. Skip it for a one-step task.`;

/** Rounds of tool calls without TodoWrite before the model is reminded of its plan. */
const NAG_AFTER_ROUNDS = 3;
const MAX_TODOS = 20;

/** The plan of one conversation. The model replaces it whole; a list that breaks a rule is refused whole. */
class TodoList {
  private items: PlanItem[] = [];

  /** Replaces the list, or returns the rule the new list breaks (and keeps the old one). */
  replace(items: PlanItem[]): string | undefined {
    const broken = brokenRule(items);
    if (broken === undefined) this.items = items;
    return broken;
  }

  get all(): readonly PlanItem[] {
    return this.items;
  }

  render(): string {
    const mark = { completed: "[x]", in_progress: "[>]", pending: "[ ]" };
    const lines = this.items.map((t) => `${mark[t.status]} ${t.content}${t.status === "in_progress" ? ` <- ${t.activeForm}` : ""}`);
    const done = this.items.filter((t) => t.status === "completed").length;
    return [...lines, `(${done}/${this.items.length} completed)`].join("\n");
  }
}

function brokenRule(items: PlanItem[]): string | undefined {
  const name = (i: number) => `item ${i + 1} ("${items[i].content}")`;
  if (items.length > MAX_TODOS) return `the list has ${items.length} items; at most ${MAX_TODOS} are allowed`;
  for (const [i, item] of items.entries()) {
    if (item.content.trim() === "") return `item ${i + 1} has empty content`;
    if (item.activeForm.trim() === "") return `${name(i)} has an empty activeForm`;
    const first = items.findIndex((other) => other.content.trim() === item.content.trim());
    if (first < i) return `${name(first)} and item ${i + 1} have the same content; each item must be different`;
  }
  const active = items.flatMap((item, i) => (item.status === "in_progress" ? [i] : []));
  if (active.length > 1) {
    return `${active.map(name).join(" and ")} are ${active.length === 2 ? "both" : "all"} in_progress; at most one item may be in progress`;
  }
  return undefined;
}

const todoItem = z.object({
  content: z.string().describe('The step, in the imperative: "Run the tests".'),
  status: z.enum(["pending", "in_progress", "completed"]),
  activeForm: z.string().describe('The same step as it is being done, shown to the user: "Running the tests".'),
});

/** Models often send the list as a JSON string instead of an array; accept both. */
const parseIfString = (value: unknown) => {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
};

function todoWriteTool(todos: TodoList, show: (items: readonly PlanItem[]) => void): Tool {
  return defineTool({
    name: "TodoWrite",
    description:
      "Write your plan for the current task as a todo list. Send the whole list every time. " +
      `Rules: at most ${MAX_TODOS} items, at most one in_progress, no two items with the same content.`,
    schema: z.object({ items: z.preprocess(parseIfString, z.array(todoItem)).describe("The whole todo list, in order.") }),
    risky: false,
    async run({ items }) {
      const broken = todos.replace(items);
      if (broken !== undefined) return `Error: the todo list was rejected: ${broken}. The previous list stays:\n${todos.render()}`;
      show(todos.all);
      return todos.render();
    },
  });
}

const reminder = (text: string): Message => ({ role: "user", content: `<reminder>${text}</reminder>` });

/** Reminders are appended after a round's tool results: earlier messages are never edited. */
function planningReminders(todos: TodoList) {
  let roundsWithoutPlan = 0;
  return {
    firstTurn: () => [reminder("If this task takes several steps, plan it first with TodoWrite, and keep the plan current as you work.")],
    afterRound: (messages: readonly Message[]): Message[] => {
      const last = messages.findLast((m) => m.role === "assistant");
      const planned = last?.role === "assistant" && last.tool_calls?.some((call) => call.function.name === "TodoWrite");
      roundsWithoutPlan = planned ? 0 : roundsWithoutPlan + 1;
      if (roundsWithoutPlan < NAG_AFTER_ROUNDS) return [];
      roundsWithoutPlan = 0;
      const state = todos.all.length > 0 ? `Your plan now:\n${todos.render()}\n` : "";
      return [reminder(`${state}You have not updated your plan for ${NAG_AFTER_ROUNDS} rounds. Update it with TodoWrite if the task has several steps.`)];
    },
  };
}
// #endregion

function systemPrompt(root: string): string {
  return [
    ROLE,
    FILE_TOOLS,
    PLANNING,
    environment(root),
  ].join("\n\n");
}

// ─── The stage ──────────────────────────────────────────────────────────────────────────────

export const stage: Stage = {
  name: "stage2",
  summary: "planning with a TodoWrite tool, and reminders that keep the model on its plan",
  start({ workspace, onEvent }) {
    const todos = new TodoList();
    return {
      systemPrompt: systemPrompt(workspace.root),
      tools: [
        bashTool(workspace),
        readFileTool(workspace),
        writeFileTool(workspace),
        editFileTool(workspace),
        todoWriteTool(todos, (items) => onEvent({ type: "plan", items })),
      ],
      ...planningReminders(todos),
    };
  },
};

if (isProgram(import.meta)) main(stage);
