// Transcripts: every message of a conversation, one JSON line each, appended as it happens, so a
// killed process leaves every earlier line whole. --resume reads one back and goes on from it.
import { appendFileSync, closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "./config.ts";
import { CANCELLED_RESULT, type AgentEvent } from "./loop.ts";
import { messageOrderProblem, parseMessageLines, type Message } from "./messages.ts";

/**
 * Adds the transcript file as a second listener: every message, one JSON line, appended as it
 * happens. A resumed conversation goes on in its own file, or is copied first into a new one.
 */
export function withTranscript(path: string | undefined, listener: (event: AgentEvent) => void, resumedFrom?: string) {
  if (path === undefined) return listener;
  endWithNewline(path);
  const sameFile = resumedFrom !== undefined && resolve(resumedFrom) === resolve(path);
  return (event: AgentEvent) => {
    if (event.type === "message") append(path, [event.message]);
    if (event.type === "resumed" && !sameFile) append(path, event.messages);
    listener(event);
  };
}

function append(path: string, messages: readonly Message[]): void {
  appendFileSync(path, messages.map((message) => JSON.stringify(message) + "\n").join(""));
}

/** A transcript cut off mid-line (the process was killed) gets its line ended, so new lines stay whole. */
function endWithNewline(path: string): void {
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    return; // no file yet
  }
  if (size === 0) return;
  const last = Buffer.alloc(1);
  const fd = openSync(path, "r");
  try {
    readSync(fd, last, 0, 1, size - 1);
  } finally {
    closeSync(fd);
  }
  if (last[0] !== 0x0a) appendFileSync(path, "\n");
}

/**
 * Reads a transcript to continue it. A damaged line (a process killed mid-write) is reported and
 * skipped; tool calls left without an answer (killed while a tool ran) are answered as cancelled.
 * The system prompt is dropped: the resumed conversation gets the current stage's. A file that
 * holds several conversations (/clear in the REPL) resumes the last one.
 */
export function loadTranscript(path: string, warn: (text: string) => void): Message[] {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`--resume ${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`);
  }
  const messages = parseMessageLines(text, (line) => warn(`${path} line ${line} is damaged and was skipped`));
  messages.splice(0, messages.findLastIndex((message) => message.role === "system") + 1); // after /clear, the last conversation
  const last = messages.findLastIndex((message) => message.role === "assistant");
  const calls = last === -1 ? [] : ((messages[last] as Extract<Message, { role: "assistant" }>).tool_calls ?? []);
  const answered = new Set(messages.slice(last + 1).map((message) => (message.role === "tool" ? message.tool_call_id : "")));
  for (const call of calls) {
    if (!answered.has(call.id)) messages.push({ role: "tool", tool_call_id: call.id, content: CANCELLED_RESULT });
  }
  const problem = messageOrderProblem(messages);
  if (problem) throw new UsageError(`--resume ${path} is not a conversation that can go on: ${problem}`);
  if (messages.length === 0) throw new UsageError(`--resume ${path} holds no messages`);
  return messages;
}
