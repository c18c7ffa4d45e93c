// The program around a stage: read the configuration, pick the model, then run one task
// (a prompt was given) or a conversation (a terminal and no prompt). Every stage uses it unchanged.
import { readFileSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { EXIT, helpText, readConfig, UsageError, type Config } from "./config.ts";
import { runLoop, TurnCancelled, type AgentEvent, type Approver, type LoopOptions, type Outcome } from "./loop.ts";
import type { Message } from "./messages.ts";
import { ModelError, recording, ScriptedModel, type Model } from "./model.ts";
import { openAIModel } from "./openai-model.ts";
import { prepareDemo } from "./demo.ts";
import { approver } from "./approval.ts";
import { bold, dim, plural, red, terminalView, yellow } from "./terminal.ts";
import { loadTranscript, withTranscript } from "./transcript.ts";
import type { Tool } from "./tools.ts";
import { createWorkspace, type Workspace } from "./workspace.ts";
import packageJson from "../package.json" with { type: "json" };

export const VERSION = packageJson.version;

/** What a stage program is: its name, and how it starts a conversation. */
export interface Stage {
  name: string;
  summary: string;
  start(setup: Setup): Conversation;
}

/** What a stage gets to build a conversation with. */
export interface Setup {
  workspace: Workspace;
  /** Folders of skills given with --skills (stage4 reads them). */
  skillFolders: string[];
  model: Model;
  approve: Approver;
  onEvent: (event: AgentEvent) => void;
}

/** One conversation of a stage: the system prompt and tools, and the stage's hooks into the loop. */
export interface Conversation {
  systemPrompt: string;
  tools: Tool[];
  /** Messages that go with the user's first message (stage2's planning reminder). */
  firstTurn?: (prompt: string) => Message[];
  afterRound?: LoopOptions["afterRound"];
}

export interface TaskOptions {
  cwd: string;
  model: Model;
  approve: Approver;
  maxSteps: number;
  skillFolders?: string[];
  onEvent?: (event: AgentEvent) => void;
  signal?: AbortSignal;
  /** Run bash under bubblewrap (--sandbox). */
  sandbox?: boolean;
  /** Messages of an earlier conversation to go on from (--resume), without its system prompt. */
  history?: readonly Message[];
}

/** A conversation in progress: the message list, and how to take one more user turn. */
export class Session {
  readonly messages: Message[] = [];
  private readonly conversation: Conversation;
  private readonly options: TaskOptions;

  constructor(stage: Stage, options: TaskOptions) {
    this.options = options;
    const onEvent = options.onEvent ?? (() => {});
    this.conversation = stage.start({
      workspace: createWorkspace(options.cwd, { sandbox: options.sandbox }),
      skillFolders: options.skillFolders ?? [],
      model: options.model,
      approve: options.approve,
      onEvent,
    });
    const system: Message = { role: "system", content: this.conversation.systemPrompt };
    if (options.history === undefined) {
      this.add(system);
    } else {
      this.messages.push(system, ...options.history);
      options.onEvent?.({ type: "resumed", messages: this.messages });
    }
  }

  private add(message: Message): void {
    this.messages.push(message);
    this.options.onEvent?.({ type: "message", message });
  }

  async turn(prompt: string, signal = this.options.signal): Promise<Outcome> {
    const first = this.messages.length === 1;
    this.add({ role: "user", content: prompt });
    if (first) for (const extra of this.conversation.firstTurn?.(prompt) ?? []) this.add(extra);
    return runLoop(this.messages, {
      model: this.options.model,
      tools: this.conversation.tools,
      maxSteps: this.options.maxSteps,
      approve: this.options.approve,
      onEvent: this.options.onEvent,
      afterRound: this.conversation.afterRound,
      signal,
    });
  }
}

/** True when the module with this import.meta is the program being run, not an import. */
export function isProgram(meta: ImportMeta): boolean {
  if (meta.main !== undefined) return meta.main;
  try {
    return meta.filename !== undefined && realpathSync(process.argv[1] ?? "") === meta.filename;
  } catch {
    return false;
  }
}

/** Runs a stage as a command-line program and exits with the kit's exit codes. */
export async function main(stage: Stage, argv = process.argv.slice(2)): Promise<never> {
  let config: Config | undefined;
  try {
    config = readConfig(argv, process.env);
    if (config.help) return exit(EXIT.answered, process.stdout, helpText(stage.name, stage.summary));
    if (config.version) return exit(EXIT.answered, process.stdout, `${stage.name} ${VERSION}\n`);
    if (config.demo) return exit(await runDemo(stage, config));
    const prompt = config.prompt ?? (process.stdin.isTTY ? undefined : readFileSync(0, "utf8").trim());
    if (prompt === "") throw new UsageError("the prompt on stdin is empty");
    if (prompt === undefined) {
      const { runRepl } = await import("./repl.ts");
      return exit(await runRepl(stage, config, makeModel(config)));
    }
    return exit(await runOnce(stage, config, prompt));
  } catch (error) {
    return exit(exitCodeOf(error), process.stderr, describeFailure(stage.name, error, config?.debug ?? false));
  }
}

/** Replays the recorded demo in a temp copy of the example workspace; nothing there is the user's, so no approvals. */
async function runDemo(stage: Stage, config: Config): Promise<number> {
  const demo = prepareDemo(stage.name);
  process.stderr.write(dim(`${stage.name} demo: replaying a recorded session in ${demo.cwd} (no model, no network)`) + "\n");
  process.stderr.write(`${bold("task:")} ${demo.prompt}\n`);
  return runOnce(stage, { ...config, cwd: demo.cwd, approval: "auto" }, demo.prompt, demo.model);
}

async function runOnce(stage: Stage, config: Config, prompt: string, model = makeModel(config)): Promise<number> {
  let deniedUnasked = false;
  const canAsk = process.stdin.isTTY === true && process.stderr.isTTY === true;
  const view = terminalView({ streamText: false });
  const session = new Session(stage, {
    ...sessionOptions(config, view.show),
    model,
    approve: approver(config.approval, canAsk, () => (deniedUnasked = true)),
  });
  let outcome;
  try {
    outcome = await withCtrlC((signal) => session.turn(prompt, signal));
  } finally {
    process.stderr.write(dim(view.endTurn()) + "\n");
  }
  if (outcome.kind === "step_limit") {
    process.stderr.write(red(`${stage.name}: stopped after ${plural(outcome.steps, "step")} without an answer (raise --max-steps)`) + "\n");
    return EXIT.noAnswer;
  }
  if (outcome.text.trim() === "") {
    process.stderr.write(red(`${stage.name}: the model's answer was empty`) + "\n");
    return EXIT.noAnswer;
  }
  process.stdout.write(outcome.text.trimEnd() + "\n");
  if (deniedUnasked) {
    process.stderr.write(dim(`${stage.name}: some risky tool calls were denied (no terminal to ask); rerun with --yes to allow them`) + "\n");
    return EXIT.noAnswer;
  }
  return EXIT.answered;
}

/** What every session of a run shares: the workspace, limits, skills, transcript, and the conversation to resume. */
export function sessionOptions(config: Config, show: (event: AgentEvent) => void) {
  const warn = (text: string) => process.stderr.write(yellow(`warning: ${text}`) + "\n");
  return {
    cwd: config.cwd,
    maxSteps: config.maxSteps,
    skillFolders: config.skills,
    sandbox: config.sandbox,
    history: config.resume === undefined ? undefined : loadTranscript(config.resume, warn),
    onEvent: withTranscript(config.transcript, show, config.resume),
  };
}

/**
 * Ctrl-C cancels the running turn: the request is aborted and the tool's process group killed,
 * so nothing keeps running behind the user's back. A second Ctrl-C leaves at once.
 */
export async function withCtrlC<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onInterrupt = () => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    controller.abort();
  };
  process.on("SIGINT", onInterrupt);
  try {
    return await work(controller.signal);
  } finally {
    process.off("SIGINT", onInterrupt);
  }
}

export function makeModel(config: Config): Model {
  const model = config.mock !== undefined
    ? ScriptedModel.fromFile(config.mock)
    : openAIModel({ model: config.model, apiKey: config.apiKey, baseURL: config.baseURL });
  return config.record !== undefined ? recording(model, config.record) : model;
}

function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof ModelError) return EXIT.modelError;
  if (error instanceof TurnCancelled) return EXIT.interrupted;
  return EXIT.modelError;
}

function describeFailure(program: string, error: unknown, debug: boolean): string {
  if (debug && error instanceof Error && error.stack) return `${error.stack}\n`;
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof UsageError ? ` (see ${program} --help)` : "";
  const known = error instanceof UsageError || error instanceof ModelError || error instanceof TurnCancelled;
  return red(`${program}: ${known ? "" : "unexpected error: "}${message}${hint}`) + "\n";
}

function exit(code: number, stream?: NodeJS.WriteStream, text?: string): never {
  if (stream && text) stream.write(text); // stdout and stderr are synchronous for files, pipes and terminals on Linux
  process.exit(code);
}
