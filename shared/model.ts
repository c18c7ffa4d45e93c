// The model layer's contract, and the two models that need no network: the scripted
// replay model and the recorder that writes any model's replies in the replay format.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { parseMessageLines, type AssistantMessage, type Message } from "./messages.ts";

/** A tool as the API sees it: the JSON schema of its arguments. */
export interface ToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ModelRequest {
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  signal?: AbortSignal;
  /** Called with each piece of assistant text as it streams in. */
  onText?: (delta: string) => void;
}

export interface Usage { input: number; output: number; cached?: number }

export interface ModelReply { message: AssistantMessage; usage?: Usage }

export interface Model {
  readonly name: string;
  complete(request: ModelRequest): Promise<ModelReply>;
}

/** A provider fault or an exhausted script: the run cannot go on. The message is for a person. */
export class ModelError extends Error {
  override name = "ModelError";
}

/** Replays assistant messages in order, and remembers every request it was sent (tests read them). */
export class ScriptedModel implements Model {
  readonly name: string;
  readonly requests: { messages: Message[]; tools: string[]; specs: ToolSpec[] }[] = [];
  private readonly replies: AssistantMessage[];

  constructor(replies: readonly AssistantMessage[], name = "scripted") {
    this.replies = replies.map((reply, i) => withCallIds(reply, i));
    this.name = name;
  }

  /** Reads a JSONL message list (a recording or a whole transcript) and keeps its assistant messages. */
  static fromFile(path: string): ScriptedModel {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new ModelError(`cannot read the script ${path}: ${(error as Error).message}`);
    }
    const messages = parseMessageLines(text, (line) => {
      throw new ModelError(`${path}:${line} is not a JSON message`);
    });
    const replies = messages.filter((m): m is AssistantMessage => m.role === "assistant");
    if (replies.length === 0) throw new ModelError(`${path} holds no assistant messages to replay`);
    return new ScriptedModel(replies, `scripted:${path}`);
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    this.requests.push({
      messages: structuredClone([...request.messages]),
      tools: request.tools.map((tool) => tool.function.name),
      specs: structuredClone([...request.tools]),
    });
    const reply = this.replies[this.requests.length - 1];
    if (!reply) {
      throw new ModelError(
        `the script has no reply left for request ${this.requests.length} (it holds ${this.replies.length})`,
      );
    }
    if (reply.content) request.onText?.(reply.content);
    return { message: structuredClone(reply) };
  }
}

/** Hand-written scripts may leave out tool call ids and types; fill them in deterministically. */
function withCallIds(reply: AssistantMessage, replyIndex: number): AssistantMessage {
  const message: AssistantMessage = { role: "assistant", content: reply.content ?? null };
  if (reply.tool_calls?.length) {
    message.tool_calls = reply.tool_calls.map((call, j) => ({
      id: call.id ?? `call_${replyIndex + 1}_${j + 1}`,
      type: "function",
      function: { name: call.function?.name, arguments: call.function?.arguments ?? "" },
    }));
  }
  return message;
}

/** Wraps a model and writes each of its replies to a file, one JSON line each, ready for --mock. */
export function recording(model: Model, path: string): Model {
  writeFileSync(path, "");
  return {
    name: model.name,
    async complete(request) {
      const reply = await model.complete(request);
      appendFileSync(path, JSON.stringify(reply.message) + "\n");
      return reply;
    },
  };
}
