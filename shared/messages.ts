// The one data shape of the kit: the chat message list in the OpenAI format.
// Transcripts, golden files and scripted models are all this list, one message per JSON line.

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface SystemMessage { role: "system"; content: string }
export interface UserMessage { role: "user"; content: string }
export interface AssistantMessage { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
export interface ToolMessage { role: "tool"; tool_call_id: string; content: string }

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/**
 * Providers require every assistant tool call to be answered by exactly one tool message,
 * in order, before any other message. Returns what is wrong, or null when the list is valid.
 */
export function messageOrderProblem(messages: readonly Message[]): string | null {
  let waiting: string[] = [];
  for (const [i, message] of messages.entries()) {
    if (message.role === "tool") {
      if (message.tool_call_id !== waiting[0]) {
        const expected = waiting[0] ? `the answer to ${waiting[0]}` : "no tool message";
        return `message ${i} answers ${message.tool_call_id}, but ${expected} was due`;
      }
      waiting.shift();
      continue;
    }
    if (waiting.length > 0) {
      return `message ${i} (${message.role}) comes before tool call ${waiting[0]} was answered`;
    }
    if (message.role === "assistant") waiting = (message.tool_calls ?? []).map((call) => call.id);
  }
  return null;
}

/** Parses JSON lines into messages; a damaged line is reported through onBadLine and skipped. */
export function parseMessageLines(text: string, onBadLine: (lineNumber: number, line: string) => void): Message[] {
  const messages: Message[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    try {
      const value = JSON.parse(line);
      if (typeof value?.role !== "string") throw new Error("no role");
      messages.push(value as Message);
    } catch {
      onBadLine(i + 1, line);
    }
  }
  return messages;
}
