// A small OpenAI-compatible chat completions server on 127.0.0.1 for tests. It streams each
// scripted reply the way providers do: text in small pieces, each tool call as an id and a name
// first and then its arguments a few characters at a time, then usage, then [DONE].
// Run it by hand: `tsx test/fake-provider.ts script.jsonl` prints its base URL.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import type { AssistantMessage } from "../shared/messages.ts";

/** One scripted answer: a reply to stream, or a fault to answer with. */
export type Turn =
  | AssistantMessage
  | { status: number; retryAfter?: number; body?: string }
  | { breakAfterChunks: number; reply: AssistantMessage }
  | { reasoning: string; reply: AssistantMessage }
  | { noUsage: true; reply: AssistantMessage }
  | { noIndex: true; reply: AssistantMessage }
  | { hang: true };

export interface FakeProvider {
  url: string;
  /** The JSON bodies of the requests received, in order, and when each came (Date.now()). */
  requests: any[];
  times: number[];
  close(): Promise<void>;
}

export async function startFakeProvider(turns: readonly Turn[], options: { repeatLast?: boolean } = {}): Promise<FakeProvider> {
  const requests: any[] = [];
  const times: number[] = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    requests.push(JSON.parse(body));
    times.push(Date.now());
    const turn = turns[requests.length - 1] ?? (options.repeatLast ? turns[turns.length - 1] : undefined);
    if (!turn) {
      res.writeHead(500).end(JSON.stringify({ error: { message: "the fake provider's script is over" } }));
    } else if ("hang" in turn) {
      // never answers: the client's timeout has to end it
    } else if ("status" in turn) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (turn.retryAfter !== undefined) headers["retry-after"] = String(turn.retryAfter);
      res.writeHead(turn.status, headers).end(turn.body ?? JSON.stringify({ error: { message: `scripted HTTP ${turn.status}` } }));
    } else if ("breakAfterChunks" in turn) {
      streamReply(res, turn.reply, { breakAfter: turn.breakAfterChunks });
    } else if ("reasoning" in turn) {
      streamReply(res, turn.reply, { reasoning: turn.reasoning });
    } else if ("noUsage" in turn) {
      streamReply(res, turn.reply, { usage: false });
    } else if ("noIndex" in turn) {
      streamReply(res, turn.reply, { noIndex: true });
    } else {
      streamReply(res, turn, {});
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    times,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk) => (body += chunk)).on("end", () => resolve(body));
  });
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

interface StreamOptions { breakAfter?: number; reasoning?: string; usage?: boolean; noIndex?: boolean }

function streamReply(res: ServerResponse, reply: AssistantMessage, { breakAfter, reasoning, usage = true, noIndex = false }: StreamOptions) {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model: "fake" };
  const chunks: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }];
  const delta = (d: object) => chunks.push({ ...base, choices: [{ index: 0, delta: d, finish_reason: null }] });
  for (const piece of pieces(reasoning ?? "", 6)) delta({ reasoning_content: piece });
  for (const piece of pieces(reply.content ?? "", 5)) delta({ content: piece });
  for (const [i, call] of (reply.tool_calls ?? []).entries()) {
    const index = noIndex ? {} : { index: i };
    delta({ tool_calls: [{ ...index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
    for (const piece of pieces(call.function.arguments, 7)) delta({ tool_calls: [{ ...index, function: { arguments: piece } }] });
  }
  const finish = reply.tool_calls?.length ? "tool_calls" : "stop";
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] });
  if (usage) {
    chunks.push({ ...base, choices: [], usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, prompt_tokens_details: { cached_tokens: 100 } } });
  }

  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  for (const [i, chunk] of chunks.entries()) {
    if (breakAfter !== undefined && i >= breakAfter) {
      setTimeout(() => res.socket?.destroy(), 50); // the connection drops mid-answer, after the first chunks went out
      return;
    }
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  res.end("data: [DONE]\n\n");
}

if (import.meta.filename === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: tsx test/fake-provider.ts SCRIPT.jsonl");
    process.exit(2);
  }
  const turns = readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
  const provider = await startFakeProvider(turns);
  console.log(provider.url);
}
