// Golden transcripts: each case under test/golden/<stage>/<case>/ runs a stage with its real
// tools against the scripted model, and the whole message list must match expected.jsonl.
// UPDATE_GOLDEN=1 rewrites the expected files (review the diff before committing them).
import { execSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session, type Stage } from "../shared/cli.ts";
import type { ApprovalMode } from "../shared/config.ts";
import { TurnCancelled, type Outcome } from "../shared/loop.ts";
import { parseMessageLines, type AssistantMessage, type Message } from "../shared/messages.ts";
import { ModelError, ScriptedModel } from "../shared/model.ts";
import { approver } from "../shared/terminal.ts";
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
}

export interface CaseRun {
  spec: CaseSpec;
  messages: Message[];
  expected: Message[] | undefined;
  requests: ScriptedModel["requests"];
  outcome: Outcome["kind"] | "model_error";
  workspace: string;
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
  const session = new Session(stage, {
    cwd: workspace,
    model,
    approve: approver(spec.approval ?? "auto", false, () => {}),
    maxSteps: spec.maxSteps ?? 20,
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
  return { spec, messages, expected, requests: model.requests, outcome, workspace };
}

/** Replaces what differs between machines and days: the temp workspace path, the date, the platform. */
export function normalize(messages: readonly Message[], workspace: string): Message[] {
  const text = JSON.stringify(messages)
    .split(workspace).join("<workspace>")
    .replace(/Date: \d{4}-\d{2}-\d{2}/g, "Date: <date>")
    .replace(new RegExp(`Platform: ${process.platform}`, "g"), "Platform: <platform>");
  return JSON.parse(text);
}

/** Every request must start with the previous request's messages, unchanged (prompt caches stay warm). */
export function prefixProblem(requests: CaseRun["requests"]): string | null {
  for (let i = 1; i < requests.length; i++) {
    const before = requests[i - 1].messages;
    const now = requests[i].messages;
    if (now.length < before.length) return `request ${i + 1} has fewer messages than request ${i}`;
    for (let j = 0; j < before.length; j++) {
      if (JSON.stringify(now[j]) !== JSON.stringify(before[j])) return `request ${i + 1} changed message ${j} of request ${i}`;
    }
  }
  return null;
}
