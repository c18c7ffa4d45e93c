// The agent loop: ask the model, run the tools it asks for, give it the results, repeat
// until it answers without tool calls or the step limit is reached. The loop never prints:
// it reports what happens as events, and the terminal (or a test) listens.
import { messageOrderProblem, type Message, type ToolCall } from "./messages.ts";
import type { Model, Usage } from "./model.ts";
import { checkCall, runTool, toolSpec, type Tool } from "./tools.ts";

export type AgentEvent =
  | { type: "request"; step: number }
  | { type: "text"; delta: string }
  | { type: "message"; message: Message }
  | { type: "tool_call"; call: ToolCall }
  | { type: "tool_result"; call: ToolCall; result: string }
  | { type: "usage"; usage: Usage }
  // Reported by the session: an earlier conversation was loaded to go on from (--resume).
  | { type: "resumed"; messages: readonly Message[] }
  // Reported by stage components, not by the loop: the plan changed (stage2), a subagent's progress
  // (stage3), a skill that could not be loaded (stage4).
  | { type: "plan"; items: readonly PlanItem[] }
  | { type: "warning"; text: string }
  | { type: "subagent"; agent: string; description: string; phase: "start" | "step" | "end"; tools: number; elapsedMs: number; result?: string };

export interface PlanItem { content: string; status: "pending" | "in_progress" | "completed"; activeForm: string }

export type Approval = { allow: true } | { allow: false; reason: string };

/** Asked before every risky tool call; the terminal asks the user, a flag may answer for them. */
export type Approver = (call: ToolCall, tool: Tool, args: Record<string, unknown>) => Promise<Approval>;

export interface LoopOptions {
  model: Model;
  tools: readonly Tool[];
  maxSteps: number;
  approve: Approver;
  onEvent?: (event: AgentEvent) => void;
  signal?: AbortSignal;
  /** Called after each round's tool results; what it returns is appended (stage2's reminders). */
  afterRound?: (messages: readonly Message[]) => Message[];
}

export type Outcome =
  | { kind: "answered"; text: string; steps: number }
  | { kind: "step_limit"; steps: number };

/** The user pressed Ctrl-C: the turn ends, the conversation stays valid. */
export class TurnCancelled extends Error {
  override name = "TurnCancelled";
  constructor() {
    super("cancelled by the user");
  }
}

export const CANCELLED_RESULT = "Error: cancelled by the user before this tool call finished.";

/** Runs one turn on `messages`, appending every new message to it. */
export async function runLoop(messages: Message[], options: LoopOptions): Promise<Outcome> {
  const { model, tools, maxSteps, onEvent = () => {}, signal } = options;
  const specs = tools.map(toolSpec);
  const append = (message: Message) => {
    messages.push(message);
    onEvent({ type: "message", message });
  };

  for (let step = 1; step <= maxSteps; step++) {
    const problem = messageOrderProblem(messages);
    if (problem) throw new Error(`bug: invalid message order before request ${step}: ${problem}`);

    onEvent({ type: "request", step });
    const reply = await askModel(model, messages, specs, options);
    if (reply.usage) onEvent({ type: "usage", usage: reply.usage });
    append(reply.message);

    const calls = reply.message.tool_calls ?? [];
    if (calls.length === 0) return { kind: "answered", text: reply.message.content ?? "", steps: step };

    let cancelled = false;
    for (const call of calls) {
      onEvent({ type: "tool_call", call });
      cancelled ||= signal?.aborted === true;
      const result = cancelled ? CANCELLED_RESULT : await answerCall(call, options).catch((error) => {
        if (!(error instanceof TurnCancelled)) throw error;
        cancelled = true; // Ctrl-C at an approval question: this call and the rest are answered as cancelled
        return CANCELLED_RESULT;
      });
      onEvent({ type: "tool_result", call, result });
      append({ role: "tool", tool_call_id: call.id, content: result });
    }
    if (cancelled || signal?.aborted) throw new TurnCancelled();
    for (const extra of options.afterRound?.(messages) ?? []) append(extra);
  }
  return { kind: "step_limit", steps: maxSteps };
}

async function askModel(model: Model, messages: Message[], specs: ReturnType<typeof toolSpec>[], options: LoopOptions) {
  try {
    return await model.complete({
      messages,
      tools: specs,
      signal: options.signal,
      onText: (delta) => options.onEvent?.({ type: "text", delta }),
    });
  } catch (error) {
    if (options.signal?.aborted) throw new TurnCancelled();
    throw error;
  }
}

/** Every call gets an answer: a result, or a message that says why it did not run. */
async function answerCall(call: ToolCall, options: LoopOptions): Promise<string> {
  const checked = checkCall(call, options.tools);
  if (!checked.ok) return checked.error;
  if (checked.tool.risky) {
    const approval = await options.approve(call, checked.tool, checked.args);
    if (!approval.allow) return `Denied: the user did not allow this ${checked.tool.name} call. ${approval.reason}`.trim();
  }
  return runTool(checked.tool, checked.args, { signal: options.signal ?? new AbortController().signal });
}

