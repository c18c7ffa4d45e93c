// The conversation: a prompt, the model's work shown as it happens, and the next prompt,
// with the history kept across turns. /clear starts a new conversation.
import { intro, isCancel, log, text } from "@clack/prompts";
import { approver } from "./approval.ts";
import { EXIT, type Config } from "./config.ts";
import { Session, sessionOptions, withCtrlC, type Stage } from "./cli.ts";
import { TurnCancelled } from "./loop.ts";
import type { Message } from "./messages.ts";
import { ModelError, type Model } from "./model.ts";
import { dim, plural, terminalView } from "./terminal.ts";

const HELP = `/help   this help
/clear  start a new conversation
/exit   leave (Ctrl-D or Ctrl-C at an empty prompt too)
Ctrl-C while the agent works stops that turn; the conversation goes on.`;

export async function runRepl(stage: Stage, config: Config, model: Model): Promise<number> {
  intro(`${stage.name} · ${model.name} · ${config.cwd} · approval ${config.approval}`);
  const view = terminalView({ out: process.stdout, streamText: true });
  const options = sessionOptions(config, view.show);
  // A new approver per conversation: "don't ask again" lasts until /clear.
  const newSession = (history?: readonly Message[]) =>
    new Session(stage, { ...options, history, model, approve: approver(config.approval, true, () => {}) });
  let session = newSession(options.history);
  // Ctrl-D ends the prompt's input without an answer, and with nothing left to wait for the
  // program ends: give the terminal its cursor back on the way out.
  process.once("beforeExit", () => process.stdout.write("\x1b[?25h\n"));
  if (options.history) log.info(`resumed ${config.resume}: ${resumeSummary(options.history)}`);

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
      const usage = view.endTurn();
      if (outcome.kind === "step_limit") log.warn(`stopped after ${plural(outcome.steps, "step")} without an answer`);
      else if (outcome.text.trim() === "") log.warn("the model's answer was empty");
      log.message(dim(usage));
    } catch (error) {
      view.endTurn();
      if (error instanceof ModelError) log.error(`${error.message} (the conversation goes on: ask again)`);
      else if (error instanceof TurnCancelled) log.warn("cancelled: the turn stopped, the conversation goes on");
      else throw error;
    }
  }
}

/** "4 turns, last answer: The bug is in words()..." */
function resumeSummary(history: readonly Message[]): string {
  const turns = history.filter((message) => message.role === "user" && !message.content.startsWith("<reminder>")).length;
  const answer = history.findLast((message) => message.role === "assistant" && message.content)?.content ?? "";
  const line = answer.split("\n")[0].slice(0, 80);
  return `${plural(turns, "turn")}${line ? `, last answer: ${line}` : ""}`;
}
