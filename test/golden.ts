// Golden transcripts: each case under test/golden/<stage>/<case>/ runs a stage with its real
// tools against the scripted model, and the whole message list must match expected.jsonl.
// UPDATE_GOLDEN=1 rewrites the expected files (review the diff before committing them).
import { execSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session, type Stage } from "../shared/cli.ts";
import type { ApprovalMode } from "../shared/config.ts";
import { TurnCancelled, type AgentEvent, type Outcome } from "../shared/loop.ts";
import { parseMessageLines, type AssistantMessage, type Message } from "../shared/messages.ts";
import { ModelError, ScriptedModel, type Model } from "../shared/model.ts";
import { approver } from "../shared/approval.ts";
import { stageNames } from "../scripts/regions.ts";

export const GOLDEN_ROOT = join(import.meta.dirname, "golden");

/** Every stage program of the ladder, imported (not run). */
export async function loadStages(): Promise<Stage[]> {
  return Promise.all(stageNames().map(async (name) => (await import(`../stages/${name}.ts`)).stage as Stage));
}

export interface CaseSpec {
  /** The user's task. */
  prompt: string;
  maxSteps?: number;
  approval?: ApprovalMode;
  /** A shell command run in the fresh workspace before the stage starts (e.g. to make a symlink). */
  setup?: string;
  /** How the run ends: "answered" (default), "step_limit", or "model_error". */
  outcome?: Outcome["kind"] | "model_error";
  /** Extra skill folders (--skills), relative to the case folder. */
  skills?: string[];
  /** Model requests (1-based, counting subagents' too) that fail as a provider error would. */
  failRequests?: number[];
  /** The run must leave every file of the workspace as it found it. */
  workspaceUnchanged?: boolean;
}

export interface CaseRun {
  spec: CaseSpec;
  messages: Message[];
  expected: Message[] | undefined;
  requests: ScriptedModel["requests"];
  outcome: Outcome["kind"] | "model_error";
  workspace: string;
  /** What the stage reported besides messages (warnings, plans, subagent progress). */
  events: AgentEvent[];
}

export function listCases(stage: string): string[] {
  const folder = join(GOLDEN_ROOT, stage);
  return existsSync(folder) ? readdirSync(folder).filter((name) => existsSync(join(folder, name, "case.json"))).sort() : [];
}

export async function runCase(stage: Stage, caseName: string): Promise<CaseRun> {
  const folder = join(GOLDEN_ROOT, stage.name, caseName);
  const spec: CaseSpec = JSON.parse(readFileSync(join(folder, "case.json"), "utf8"));
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), `golden-${caseName}-`)));
  if (existsSync(join(folder, "workspace"))) cpSync(join(folder, "workspace"), workspace, { recursive: true });
  if (spec.setup) execSync(spec.setup, { cwd: workspace, stdio: "ignore" });

  const script = parseMessageLines(readFileSync(join(folder, "script.jsonl"), "utf8"), (line) => {
    throw new Error(`${caseName}/script.jsonl:${line} is not JSON`);
  });
  const model = new ScriptedModel(script.filter((m): m is AssistantMessage => m.role === "assistant"));
  const before = snapshot(workspace);
  const events: AgentEvent[] = [];
  const session = new Session(stage, {
    onEvent: (event) => {
      if (event.type !== "message" && event.type !== "text") events.push(event);
    },
    cwd: workspace,
    model: failing(model, spec.failRequests ?? []),
    approve: approver(spec.approval ?? "auto", false, () => {}),
    maxSteps: spec.maxSteps ?? 20,
    skillFolders: (spec.skills ?? []).map((folder) => join(GOLDEN_ROOT, stage.name, caseName, folder)),
  });

  let outcome: CaseRun["outcome"];
  try {
    outcome = (await session.turn(spec.prompt)).kind;
  } catch (error) {
    if (!(error instanceof ModelError) && !(error instanceof TurnCancelled)) throw error;
    outcome = "model_error";
  }

  const messages = normalize(session.messages, workspace);
  const expectedFile = join(folder, "expected.jsonl");
  if (process.env.UPDATE_GOLDEN) writeFileSync(expectedFile, messages.map((m) => JSON.stringify(m)).join("\n") + "\n");
  const expected = existsSync(expectedFile)
    ? parseMessageLines(readFileSync(expectedFile, "utf8"), (line) => {
        throw new Error(`${caseName}/expected.jsonl:${line} is not JSON`);
      })
    : undefined;
  if (spec.workspaceUnchanged && JSON.stringify(snapshot(workspace)) !== JSON.stringify(before)) {
    throw new Error(`${caseName}: the workspace changed, but the case says it must not`);
  }
  return { spec, messages, expected, requests: model.requests, outcome, workspace, events };
}

/** The scripted model, but the chosen requests fail the way a provider error does (nothing is consumed). */
function failing(model: ScriptedModel, failRequests: number[]): Model {
  let count = 0;
  return {
    name: model.name,
    async complete(request) {
      count++;
      if (failRequests.includes(count)) throw new ModelError("the provider at http://127.0.0.1/v1 answered HTTP 500: scripted failure");
      return model.complete(request);
    },
  };
}

/** Every file below `folder` with its content, to compare before and after a run. */
function snapshot(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files[join(entry.parentPath, entry.name)] = readFileSync(join(entry.parentPath, entry.name), "utf8");
  }
  return files;
}

/** Replaces what differs between machines and days: the temp workspace path, the date, the platform. */
export function normalize(messages: readonly Message[], workspace: string): Message[] {
  const text = JSON.stringify(messages)
    .split(workspace).join("<workspace>")
    .split(GOLDEN_ROOT).join("<golden>")
    .replace(/Date: \d{4}-\d{2}-\d{2}/g, "Date: <date>")
    .replace(/\/[^"\s]*\/agent-stages-skills-\w+/g, "<kit-skills>")
    .replace(new RegExp(`Platform: ${process.platform}`, "g"), "Platform: <platform>");
  return JSON.parse(text);
}

/**
 * Each request paired with the previous request of the same conversation. A subagent's requests
 * are a conversation of their own (its own system prompt and job), told apart by those first two messages.
 */
export function followingRequests(requests: CaseRun["requests"]): { previous: number; next: number }[] {
  const last = new Map<string, number>();
  const pairs: { previous: number; next: number }[] = [];
  for (const [i, { messages }] of requests.entries()) {
    const key = JSON.stringify(messages.slice(0, 2));
    const previous = last.get(key);
    last.set(key, i);
    if (previous !== undefined) pairs.push({ previous, next: i });
  }
  return pairs;
}

/** Every request must start with the previous request of the same conversation, unchanged, so prompt caches stay warm. */
export function prefixProblem(requests: CaseRun["requests"]): string | null {
  for (const { previous, next } of followingRequests(requests)) {
    const before = requests[previous].messages;
    const messages = requests[next].messages;
    if (messages.length < before.length) return `request ${next + 1} has fewer messages than request ${previous + 1}`;
    for (let j = 0; j < before.length; j++) {
      if (JSON.stringify(messages[j]) !== JSON.stringify(before[j])) return `request ${next + 1} changed message ${j} of request ${previous + 1}`;
    }
  }
  return null;
}
