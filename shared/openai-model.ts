// The real model: any OpenAI-compatible chat completions endpoint, streamed.
// Tool calls arrive in pieces (an id and a name first, then the arguments a few characters at
// a time, keyed by index); we assemble them and return one finished assistant message.
import type { AssistantMessage, ToolCall } from "./messages.ts";
import { ModelError, type Model, type ModelReply, type ModelRequest, type Usage } from "./model.ts";

export interface OpenAIModelOptions {
  model: string;
  apiKey: string;
  baseURL: string;
  maxRetries?: number;
  timeoutMs?: number;
}

export function openAIModel(options: OpenAIModelOptions): Model {
  // The client library is loaded on first use, so `--help` and `--version` start fast.
  let client: Promise<import("openai").OpenAI> | undefined;
  const connect = async () => {
    const { OpenAI } = await import("openai");
    return new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      maxRetries: options.maxRetries ?? 3, // 429 and 5xx, with backoff; retry-after is honoured
      timeout: options.timeoutMs ?? 120_000,
    });
  };

  return {
    name: options.model,
    async complete(request) {
      client ??= connect();
      try {
        return await streamReply(await client, options.model, request);
      } catch (error) {
        throw describeProviderError(error, options, await import("openai"));
      }
    },
  };
}

async function streamReply(client: import("openai").OpenAI, model: string, request: ModelRequest): Promise<ModelReply> {
  const stream = await client.chat.completions.create(
    {
      model,
      messages: request.messages as never,
      ...(request.tools.length > 0 ? { tools: request.tools as never } : {}),
      stream: true,
      stream_options: { include_usage: true },
    },
    { signal: request.signal },
  );

  let text = "";
  const calls: ToolCall[] = [];
  let usage: Usage | undefined;
  for await (const chunk of stream) {
    if (chunk.usage) usage = readUsage(chunk.usage);
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) continue;
    if (delta.content) {
      text += delta.content;
      request.onText?.(delta.content);
    }
    for (const piece of delta.tool_calls ?? []) {
      // Some providers leave out `index`; their pieces then belong to the call in progress.
      const call = (calls[piece.index ?? Math.max(calls.length - 1, 0)] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.function.name += piece.function.name;
      if (piece.function?.arguments) call.function.arguments += piece.function.arguments;
    }
  }

  const message: AssistantMessage = { role: "assistant", content: text || null };
  const toolCalls = calls.filter(Boolean).map((call, i) => ({ ...call, id: call.id || `call_${Date.now()}_${i}` }));
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return { message, usage };
}

/** Providers name the same counts differently; DeepSeek reports cache hits on their own. */
function readUsage(raw: Record<string, any>): Usage {
  const cached = raw.prompt_tokens_details?.cached_tokens ?? raw.prompt_cache_hit_tokens;
  return {
    input: raw.prompt_tokens ?? 0,
    output: raw.completion_tokens ?? 0,
    ...(typeof cached === "number" ? { cached } : {}),
  };
}

/** Turns what the client library threw into one clear sentence, never echoing the key. */
export function describeProviderError(error: unknown, options: OpenAIModelOptions, library: typeof import("openai")): Error {
  if (error instanceof library.APIUserAbortError) return error; // Ctrl-C: the loop reports the cancellation
  const e = error as { status?: number; message?: string };
  let message: string;
  if (error instanceof library.APIConnectionTimeoutError) {
    message = `the model provider at ${options.baseURL} did not answer in time`;
  } else if (error instanceof library.APIConnectionError) {
    message = `could not connect to the model provider at ${options.baseURL} (is it running, and is the URL right?)`;
  } else if (e?.status === 401 || e?.status === 403) {
    message = `the provider at ${options.baseURL} refused the API key (HTTP ${e.status}); check OPENAI_API_KEY`;
  } else if (e?.status === 404) {
    message = `the provider at ${options.baseURL} does not know the model "${options.model}" (HTTP 404); check --model or AGENT_MODEL`;
  } else if (e?.status === 429) {
    message = `the provider at ${options.baseURL} is rate-limiting requests (HTTP 429), still after retries`;
  } else if (typeof e?.status === "number") {
    message = `the provider at ${options.baseURL} answered HTTP ${e.status}: ${firstLine(e.message)}`;
  } else {
    message = `the model stream from ${options.baseURL} broke off: ${firstLine(e?.message)}`;
  }
  return new ModelError(withoutKey(message, options.apiKey), { cause: error });
}

/** Providers sometimes quote the key in their errors; a real key is long, so a short one is left alone. */
function withoutKey(text: string, key: string): string {
  return key.length >= 8 ? text.split(key).join("[key]") : text;
}

function firstLine(text: string | undefined): string {
  return (text ?? "unknown error").split("\n")[0].slice(0, 300);
}
