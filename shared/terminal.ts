// The terminal listens to the loop's events and shows them: streamed text, a spinner while the
// model thinks, one line per tool call, the plan, subagents, and the usage of each turn.
// In one-task mode progress goes to stderr, so stdout carries only the answer.
import type { Writable } from "node:stream";
import type { AgentEvent, PlanItem } from "./loop.ts";
import type { Usage } from "./model.ts";
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

export interface TerminalView {
  show(event: AgentEvent): void;
  /** Stops the spinner, and returns the turn's usage line: steps, tokens, elapsed time. */
  endTurn(): string;
}

/** Shows the loop's events: streamed text, one line per tool call, a short preview of each result. */
export function terminalView({ out = process.stderr, streamText }: ViewOptions): TerminalView {
  let midLine = false;
  const endLine = () => {
    if (midLine) out.write("\n");
    midLine = false;
  };
  const thinking = spinner(out);
  let meter = new TurnMeter();
  const show = (event: AgentEvent) => {
    meter.count(event);
    if (event.type === "request") thinking.start();
    else if (event.type !== "usage" && (event.type !== "text" || streamText)) thinking.stop();
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
        const width = Math.max(40, ((out as { columns?: number }).columns ?? 124) - 4);
        const preview = lines.slice(0, 3).map((line) => oneLine(line, width));
        if (lines.length > 3) preview.push(`… ${plural(lines.length - 3, "more line")}`);
        out.write(preview.map((line, i) => dim(`${i === 0 ? "  ⎿ " : "    "}${line}`, out)).join("\n") + "\n");
        break;
      }
    }
  };
  const endTurn = () => {
    thinking.stop();
    endLine();
    endLiveLine(out);
    const line = meter.line();
    meter = new TurnMeter();
    return line;
  };
  return { show, endTurn };
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** "thinking" with a turning wheel while the model has not answered yet; nothing at all off a terminal. */
function spinner(out: Writable) {
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
    out.write("\r\x1b[2K");
  };
  const start = () => {
    if (timer !== undefined || !useColor(out)) return;
    const started = Date.now();
    let frame = 0;
    const draw = () => {
      const seconds = Math.floor((Date.now() - started) / 1000);
      out.write(`\r\x1b[2K${cyan(FRAMES[frame++ % FRAMES.length], out)} ${dim(seconds > 0 ? `thinking ${seconds}s` : "thinking", out)}`);
    };
    draw();
    timer = setInterval(draw, 80);
    timer.unref();
  };
  return { start, stop };
}

/** Counts one turn: model requests, tokens in and out (cached when the provider says), time. */
class TurnMeter {
  private started: number | undefined;
  private steps = 0;
  private usage: Usage | undefined;

  count(event: AgentEvent): void {
    if (event.type === "request") {
      this.started ??= Date.now();
      this.steps++;
    }
    if (event.type !== "usage") return;
    const sum = this.usage ?? { input: 0, output: 0 };
    this.usage = {
      input: sum.input + event.usage.input,
      output: sum.output + event.usage.output,
      cached: event.usage.cached === undefined ? sum.cached : (sum.cached ?? 0) + event.usage.cached,
    };
  }

  line(): string {
    const parts = [plural(this.steps, "step")];
    if (this.usage) {
      const cached = this.usage.cached ? ` (${tokens(this.usage.cached)} cached)` : "";
      parts.push(`${tokens(this.usage.input)} tokens in${cached}, ${tokens(this.usage.output)} out`);
    }
    parts.push(`${((Date.now() - (this.started ?? Date.now())) / 1000).toFixed(1)}s`);
    return parts.join(" · ");
  }
}

/** 845, 12.3k, 1.2M */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
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
