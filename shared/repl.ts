// The conversation: a prompt, the model's work shown as it happens, and the next prompt,
// with the history kept across turns. /clear starts a new conversation.
import { intro, isCancel, log, text } from "@clack/prompts";
import { EXIT, type Config } from "./config.ts";
import { Session, withCtrlC, withTranscript, type Stage } from "./cli.ts";
import { TurnCancelled } from "./loop.ts";
import type { Model } from "./model.ts";
import { approver, dim, plural, terminalView } from "./terminal.ts";

const HELP = `/help   this help
/clear  start a new conversation
/exit   leave (Ctrl-D or Ctrl-C at an empty prompt too)`;

export async function runRepl(stage: Stage, config: Config, model: Model): Promise<number> {
  intro(`${stage.name} · ${model.name} · ${config.cwd} · approval ${config.approval}`);
  const newSession = () =>
    new Session(stage, {
      cwd: config.cwd,
      model,
      approve: approver(config.approval, true, () => {}),
      maxSteps: config.maxSteps,
      skillFolders: config.skills,
      onEvent: withTranscript(config.transcript, terminalView({ out: process.stdout, streamText: true })),
    });
  let session = newSession();

  for (;;) {
    const input = await text({ message: "You", placeholder: "ask for something, or /help" });
    if (isCancel(input)) return EXIT.interrupted;
    const prompt = input.trim();
    if (prompt === "") continue;
    if (prompt === "/exit") return EXIT.answered;
    if (prompt === "/help") {
      log.message(HELP);
      continue;
    }
    if (prompt === "/clear") {
      session = newSession();
      log.info("new conversation");
      continue;
    }
    try {
      const outcome = await withCtrlC((signal) => session.turn(prompt, signal));
      process.stdout.write("\n");
      if (outcome.kind === "step_limit") log.warn(`stopped after ${plural(outcome.steps, "step")} without an answer`);
      else log.message(dim(plural(outcome.steps, "step")));
    } catch (error) {
      if (!(error instanceof TurnCancelled)) throw error;
      log.warn("cancelled: the turn stopped, the conversation goes on");
    }
  }
}
