/**
 * stage4: skills, knowledge the model loads when a task needs it.
 *
 * Tools decide what the model can do; skills decide what it knows how to do. A skill is a folder
 * with a SKILL.md (YAML frontmatter with a name and a description, then instructions in Markdown)
 * and optional resource files. Three layers keep the context small: at the start the model sees
 * only each skill's name and description (in the Skill tool's description); Skill {skill} returns
 * the instructions as a tool result (the system prompt is never edited); and the instructions
 * point to resource files the model reads with read_file only if it needs them.
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
// #region subagents (stage3)
import type { Setup } from "../shared/cli.ts";
import { runLoop } from "../shared/loop.ts";
import { readOnlyBashTool } from "../shared/read-only-bash.ts";
import type { Workspace } from "../shared/workspace.ts";
// #endregion
// #region skills (stage4)
import { existsSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, relative } from "node:path";
import { parse as parseYaml } from "yaml";
import { unpackKitFolder } from "../shared/kit-files.ts";
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

// #region subagents (stage3)
const SUBAGENTS = `Use Task to hand a focused job to a subagent that works in its own clean context and returns only
its final answer: explore to search and read the code, plan for a step-by-step plan, code for a self-contained
change. A subagent sees nothing of this conversation: write everything it needs into the prompt.`;

/** Model requests one subagent may make before it has to stop. */
const SUBAGENT_MAX_STEPS = 20;

interface AgentType {
  description: string;
  prompt: string;
  tools: (workspace: Workspace) => Tool[];
}

/** The agent types: what each is for (the parent reads this), how it works, and what it may use. */
const AGENT_TYPES: Record<string, AgentType> = {
  explore: {
    description: "read-only: searches and reads the code, then summarizes what it found, with paths and line numbers",
    prompt: `You are an explore subagent. Search and read the code to answer the job you are given; you cannot change
anything. Be quick and targeted: list and grep before you read whole files. End with a concise summary of what
you found, naming files and line numbers.`,
    tools: (workspace) => [readOnlyBashTool(workspace), readFileTool(workspace)],
  },
  plan: {
    description: "read-only: studies the code and returns a numbered plan for a change",
    prompt: `You are a planning subagent. Study the code the job concerns; you cannot change anything. Answer with a
numbered step-by-step plan: which files change and how, in what order, and how to check the result.`,
    tools: (workspace) => [readOnlyBashTool(workspace), readFileTool(workspace)],
  },
  code: {
    description: "may edit files and run commands: makes one focused change and checks it",
    prompt: `You are a coding subagent. Make the change the job asks for, check it (run the tests if there are any),
and end with a short report of what you changed and how you checked it.`,
    tools: (workspace) => [bashTool(workspace), readFileTool(workspace), writeFileTool(workspace), editFileTool(workspace)],
  },
};

/** What a subagent runs with: the parent's workspace, model, approvals and terminal. */
type SubagentSetup = Pick<Setup, "workspace" | "model" | "approve" | "onEvent">;

function taskTool(setup: SubagentSetup): Tool {
  const names = Object.keys(AGENT_TYPES) as [string, ...string[]];
  return defineTool({
    name: "Task",
    description:
      "Run a subagent on a focused job in a fresh context; only its final answer comes back to you. Agent types:\n" +
      names.map((name) => `- ${name}: ${AGENT_TYPES[name].description}`).join("\n"),
    schema: z.object({
      description: z.string().describe("A short name for the job, 3 to 5 words, shown to the user."),
      prompt: z.string().describe("The whole job. The subagent sees nothing else of this conversation."),
      agent_type: z.enum(names).describe("Which kind of subagent to run."),
    }),
    risky: false, // the subagent asks for approval of its own risky calls
    run: ({ description, prompt, agent_type }, { signal }) => runSubagent(setup, agent_type, description, prompt, signal),
  });
}

/** Runs the loop again with fresh messages; reports one line of progress instead of the subagent's output. */
async function runSubagent(setup: SubagentSetup, name: string, description: string, prompt: string, signal: AbortSignal) {
  const type = AGENT_TYPES[name];
  const started = Date.now();
  let tools = 0;
  const report = (phase: "start" | "step" | "end", result?: string) =>
    setup.onEvent({ type: "subagent", agent: name, description, phase, tools, elapsedMs: Date.now() - started, result });
  const messages: Message[] = [
    { role: "system", content: `${type.prompt}\n\n${environment(setup.workspace.root)}` },
    { role: "user", content: prompt },
  ];
  report("start");
  try {
    const outcome = await runLoop(messages, {
      model: setup.model,
      tools: type.tools(setup.workspace),
      maxSteps: SUBAGENT_MAX_STEPS,
      approve: setup.approve,
      signal,
      onEvent: (event) => {
        if (event.type === "usage") setup.onEvent(event); // the turn's token count includes its subagents
        if (event.type !== "tool_call") return;
        tools++;
        report("step");
      },
    });
    if (outcome.kind === "step_limit") {
      report("end", "stopped at its step limit");
      return `Error: the ${name} subagent stopped after ${SUBAGENT_MAX_STEPS} steps without finishing. Give it a smaller job, or do the rest yourself.`;
    }
    report("end", "done");
    return outcome.text;
  } catch (error) {
    report("end", "failed");
    if (signal.aborted) throw error;
    return `Error: the ${name} subagent failed: ${(error as Error).message}. Retry it, or go on without it.`;
  }
}
// #endregion

// #region skills (stage4)
const SKILLS = `Skills are instructions for particular kinds of work; the Skill tool lists them. When a task
matches a skill, load it with Skill before you start, and follow it.`;

interface Skill {
  name: string;
  description: string;
  /** The other frontmatter fields, kept as written (license, allowed-tools, metadata, ...). */
  fields: Record<string, unknown>;
  body: string;
  /** The skill's other files, as paths read_file accepts. */
  resources: string[];
}

type Parsed = { skill: Omit<Skill, "resources"> } | { problem: string };

/** A SKILL.md: YAML frontmatter between two --- lines, then the Markdown instructions. */
export function parseSkill(text: string): Parsed {
  const frontmatter = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(\r?\n|$)/.exec(text);
  if (!frontmatter) return { problem: "has no YAML frontmatter (a block between --- lines at the top)" };
  let meta: unknown;
  try {
    meta = readYaml(frontmatter[1]);
  } catch (error) {
    return { problem: `has frontmatter that is not valid YAML (${(error as Error).message.split("\n")[0]})` };
  }
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return { problem: "has frontmatter that is not a YAML mapping" };
  const { name, description, ...fields } = meta as Record<string, unknown>;
  if (typeof name !== "string" || name.trim() === "") return { problem: "has no name in its frontmatter" };
  if (typeof description !== "string" || description.trim() === "") return { problem: "has no description in its frontmatter" };
  const body = text.slice(frontmatter[0].length).trim();
  return { skill: { name: name.trim(), description: description.trim().replace(/\s+/g, " "), fields, body } };
}

/**
 * Many real SKILL.md files have plain values with ": " inside ("Use when X. Triggers: a, b"), which
 * strict YAML refuses. Such a top-level value is read as the text it was meant to be, then parsed again.
 */
function readYaml(text: string): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    const repaired = text.replace(/^([A-Za-z_][\w-]*):[ \t]+(?![|>"'[{&*!])(.*:\s.*)$/gm, (_, key, value) => `${key}: ${JSON.stringify(value.trim())}`);
    if (repaired === text) throw error;
    return parseYaml(repaired);
  }
}

/** The skills of one conversation, by name. A later folder's skill replaces an earlier one of the same name. */
class SkillRegistry {
  private readonly skills = new Map<string, Skill>();
  readonly warnings: string[] = [];
  private readonly workspace: Workspace;

  constructor(workspace: Workspace) {
    this.workspace = workspace;
  }

  /** Adds every <name>/SKILL.md of `folder`; a broken one is skipped with a warning. */
  addFolder(folder: string): void {
    if (!existsSync(folder) || !statSync(folder).isDirectory()) return;
    if (!isInsideFolder(this.workspace.root, folder)) this.workspace.allowReading(folder);
    for (const name of readdirSync(folder).sort()) {
      const file = join(folder, name, "SKILL.md");
      if (!existsSync(file)) continue;
      const parsed = parseSkill(readFileSync(file, "utf8"));
      if ("problem" in parsed) {
        this.warnings.push(`skipped the skill ${this.shown(file)}: it ${parsed.problem}`);
        continue;
      }
      const resources = filesBelow(join(folder, name)).filter((path) => path !== file).map((path) => this.shown(path));
      this.skills.set(parsed.skill.name, { ...parsed.skill, resources });
    }
  }

  get(name: string): Skill | undefined {
    return this.skills.get(name);
  }

  list(): Skill[] {
    return [...this.skills.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Workspace paths relative to it; the kit's and --skills folders absolute. */
  private shown(path: string): string {
    return isInsideFolder(this.workspace.root, path) ? relative(this.workspace.root, path) : path;
  }
}

function isInsideFolder(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return !rel.startsWith("..") && !isAbsolute(rel);
}

function filesBelow(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The kit's own skills ship inside the program; they are unpacked once so read_file can open their files. */
let kitSkillsFolder: string | undefined;
function kitSkills(): string {
  if (kitSkillsFolder === undefined) {
    kitSkillsFolder = mkdtempSync(join(tmpdir(), "agent-stages-skills-"));
    unpackKitFolder("skills", kitSkillsFolder);
  }
  return kitSkillsFolder;
}

/** The kit's skills, then the workspace's skills/ and .agents/skills/, then --skills folders: later ones win. */
function loadSkills(workspace: Workspace, extraFolders: string[], warn: (text: string) => void): SkillRegistry {
  const registry = new SkillRegistry(workspace);
  for (const folder of [kitSkills(), join(workspace.root, "skills"), join(workspace.root, ".agents", "skills"), ...extraFolders]) {
    registry.addFolder(folder);
  }
  registry.warnings.forEach(warn);
  return registry;
}

function skillTool(skills: SkillRegistry): Tool {
  const available = skills.list();
  return defineTool({
    name: "Skill",
    description:
      "Load a skill: instructions for a kind of task, and the files they refer to. Load one when the task matches " +
      "its description. Available skills:\n" +
      (available.map((skill) => `- ${skill.name}: ${skill.description}`).join("\n") || "(none)"),
    schema: z.object({ skill: z.string().describe("The name of the skill to load.") }),
    risky: false,
    async run({ skill: name }) {
      const skill = skills.get(name);
      if (!skill) {
        return `Error: there is no skill named "${name}". Available skills: ${available.map((s) => s.name).join(", ") || "none"}.`;
      }
      const resources = skill.resources.length === 0 ? "" :
        `\n\nFiles of this skill (open them with read_file when the instructions say so):\n${skill.resources.map((path) => `- ${path}`).join("\n")}`;
      return `<skill-loaded name="${skill.name}">\n${skill.body}${resources}\n</skill-loaded>`;
    },
  });
}
// #endregion

function systemPrompt(root: string): string {
  return [
    ROLE,
    FILE_TOOLS,
    PLANNING,
    SUBAGENTS,
    SKILLS,
    environment(root),
  ].join("\n\n");
}

// ─── The stage ──────────────────────────────────────────────────────────────────────────────

export const stage: Stage = {
  name: "stage4",
  summary: "skills loaded on demand from SKILL.md folders",
  start({ workspace, skillFolders, model, approve, onEvent }) {
    const todos = new TodoList();
    const skills = loadSkills(workspace, skillFolders, (text) => onEvent({ type: "warning", text }));
    return {
      systemPrompt: systemPrompt(workspace.root),
      tools: [
        bashTool(workspace),
        readFileTool(workspace),
        writeFileTool(workspace),
        editFileTool(workspace),
        todoWriteTool(todos, (items) => onEvent({ type: "plan", items })),
        taskTool({ workspace, model, approve, onEvent }),
        skillTool(skills),
      ],
      ...planningReminders(todos),
    };
  },
};

if (isProgram(import.meta)) main(stage);
