// The terminal listens to the loop's events and shows them; it also asks the user to approve
// risky tool calls. Progress goes to stderr, so stdout carries only the answer.
import type { Writable } from "node:stream";
import type { ApprovalMode } from "./config.ts";
import type { AgentEvent, Approval, Approver, PlanItem } from "./loop.ts";
import type { ToolCall } from "./messages.ts";

const useColor = (stream: Writable) => !process.env.NO_COLOR && (stream as { isTTY?: boolean }).isTTY === true;
const paint = (code: string) => (text: string, stream: Writable = process.stderr) =>
  useColor(stream) ? `\x1b[${code}m${text}\x1b[0m` : text;
export const dim = paint("2");
export const bold = paint("1");
export const red = paint("31");
export const green = paint("32");
export const cyan = paint("36");
export const yellow = paint("33");

/** "1 step", "3 steps". */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The one argument that says what a call does: the command, the path, the description... */
export function keyArgument(call: ToolCall): string {
  let args: Record<string, unknown> = {};
  try {
    args = JSON.parse(call.function.arguments || "{}");
  } catch {
    return oneLine(call.function.arguments, 80);
  }
  if (Array.isArray(args.items)) return plural(args.items.length, "item");
  const key = ["command", "path", "description", "skill"].find((name) => typeof args[name] === "string");
  return oneLine(key ? String(args[key]) : JSON.stringify(args), 100);
}

function oneLine(text: string, width: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > width ? line.slice(0, width - 1) + "…" : line;
}

export interface ViewOptions {
  out?: Writable;
  /** Stream assistant text as it arrives (a conversation); otherwise show it when a message completes. */
  streamText: boolean;
}

/** Shows the loop's events: streamed text, one line per tool call, a short preview of each result. */
export function terminalView({ out = process.stderr, streamText }: ViewOptions): (event: AgentEvent) => void {
  let midLine = false;
  const endLine = () => {
    if (midLine) out.write("\n");
    midLine = false;
  };
  return (event) => {
    switch (event.type) {
      case "text":
        if (streamText) {
          out.write(event.delta);
          midLine = !event.delta.endsWith("\n");
        }
        break;
      case "message":
        if (!streamText && event.message.role === "assistant" && event.message.tool_calls?.length && event.message.content) {
          out.write(event.message.content.trimEnd() + "\n");
        }
        break;
      case "tool_call":
        endLine();
        out.write(`${cyan("●", out)} ${bold(event.call.function.name, out)} ${keyArgument(event.call)}\n`);
        break;
      case "plan":
        out.write(renderPlan(event.items, out));
        break;
      case "subagent":
        showSubagent(event, out);
        break;
      case "warning":
        endLine();
        out.write(yellow(`warning: ${event.text}`, out) + "\n");
        break;
      case "tool_result": {
        if (event.call.function.name === "TodoWrite" && !event.result.startsWith("Error")) break; // the plan was shown
        const lines = event.result.trimEnd().split("\n");
        const preview = lines.slice(0, 3).map((line) => oneLine(line, 120));
        if (lines.length > 3) preview.push(`… ${plural(lines.length - 3, "more line")}`);
        out.write(preview.map((line, i) => dim(`${i === 0 ? "  ⎿ " : "    "}${line}`, out)).join("\n") + "\n");
        break;
      }
    }
  };
}

type SubagentEvent = Extract<AgentEvent, { type: "subagent" }>;

/** A live line on a terminal is rewritten in place; a prompt must end it first. */
let liveLine = false;

export function endLiveLine(out: Writable = process.stderr): void {
  if (liveLine) out.write("\n");
  liveLine = false;
}

/** One line per subagent: `[explore] find auth code ... 5 tools, 3.2s`, rewritten as it works. */
function showSubagent(event: SubagentEvent, out: Writable): void {
  const tty = (out as { isTTY?: boolean }).isTTY === true;
  const figures = `${plural(event.tools, "tool")}, ${(event.elapsedMs / 1000).toFixed(1)}s`;
  const head = `  ${cyan(`[${event.agent}]`, out)} ${event.description}`;
  if (event.phase === "end") {
    const line = `${head}: ${event.result ?? "done"} ${dim(`(${figures})`, out)}`;
    out.write(tty && liveLine ? `\r\x1b[2K${line}\n` : `${line}\n`);
    liveLine = false;
  } else if (tty) {
    out.write(`\r\x1b[2K${head} ${dim(`... ${figures}`, out)}`);
    liveLine = true;
  } else if (event.phase === "start") {
    out.write(`${head} ...\n`);
  }
}

/** The plan as the user sees it: done items dimmed, the one in progress set off. */
export function renderPlan(items: readonly PlanItem[], out: Writable = process.stderr): string {
  const done = items.filter((item) => item.status === "completed").length;
  const lines = items.map((item) => {
    if (item.status === "completed") return dim(`    ✔ ${item.content}`, out);
    if (item.status === "in_progress") return bold(cyan(`    ▶ ${item.activeForm}`, out), out);
    return `    ○ ${item.content}`;
  });
  return `${dim(`  plan (${done}/${items.length} done)`, out)}\n${lines.join("\n")}\n`;
}

/**
 * Decides risky calls by the approval mode. Without a terminal, ask mode cannot ask: the call is
 * denied and the model is told the user can rerun with --yes.
 */
export function approver(mode: ApprovalMode, canAsk: boolean, onDeniedUnasked: () => void): Approver {
  return async (call) => {
    if (mode === "auto") return { allow: true };
    if (mode === "never") return { allow: false, reason: "The approval mode is never: risky tools do not run." };
    if (!canAsk) {
      onDeniedUnasked();
      return {
        allow: false,
        reason: "There is no terminal to ask for approval. The user can rerun with --yes to allow risky tools.",
      };
    }
    return askUser(call);
  };
}

async function askUser(call: ToolCall): Promise<Approval> {
  const { select, isCancel } = await import("@clack/prompts");
  endLiveLine();
  const answer = await select({
    message: `Allow ${call.function.name}: ${keyArgument(call)}?`,
    options: [
      { value: "yes", label: "Yes" },
      { value: "no", label: "No" },
    ],
    output: process.stderr,
  });
  if (answer === "yes") return { allow: true };
  return { allow: false, reason: isCancel(answer) ? "The user cancelled the question." : "" };
}
