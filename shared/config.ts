// Command-line arguments and environment, turned into one checked configuration.
// Everything a user can get wrong here ends in a UsageError: one line, exit code 2.
import { existsSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { sandboxProblem } from "./sandbox.ts";

export const EXIT = { answered: 0, noAnswer: 1, usage: 2, modelError: 3, interrupted: 130 } as const;

export class UsageError extends Error {
  override name = "UsageError";
}

export type ApprovalMode = "ask" | "auto" | "never";

export interface Config {
  prompt?: string;
  cwd: string;
  approval: ApprovalMode;
  maxSteps: number;
  mock?: string;
  demo: boolean;
  record?: string;
  transcript?: string;
  resume?: string;
  sandbox: boolean;
  skills: string[];
  model: string;
  baseURL: string;
  apiKey: string;
  debug: boolean;
  help: boolean;
  version: boolean;
}

export const DEFAULT_MAX_STEPS = 50;
export const OPENAI_URL = "https://api.openai.com/v1";
export const DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";

const options = {
  model: { type: "string", short: "m" },
  "base-url": { type: "string" },
  cwd: { type: "string", short: "C" },
  approval: { type: "string" },
  yes: { type: "boolean", short: "y" },
  "max-steps": { type: "string" },
  mock: { type: "string" },
  demo: { type: "boolean" },
  record: { type: "string" },
  transcript: { type: "string" },
  resume: { type: "string" },
  sandbox: { type: "boolean" },
  skills: { type: "string", multiple: true },
  debug: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

export function helpText(program: string, summary: string): string {
  return `${program}: ${summary}

Usage: ${program} [options] [prompt]
  With a prompt (or a prompt piped on stdin): do that one task, print the answer on stdout.
  With no prompt on a terminal: a conversation (type /help in it).

Options:
  -m, --model NAME       model name (env AGENT_MODEL; default ${DEFAULT_OPENAI_MODEL} on OpenAI)
      --base-url URL     OpenAI-compatible endpoint (env OPENAI_BASE_URL; default ${OPENAI_URL})
  -C, --cwd DIR          workspace folder (default: the current folder)
      --approval MODE    risky tools (bash, write_file, edit_file): ask | auto | never (default ask)
  -y, --yes              same as --approval auto
      --max-steps N      model requests per task before stopping (default ${DEFAULT_MAX_STEPS})
      --mock FILE        replay the assistant messages of FILE instead of calling a model (no key needed)
      --demo             replay this stage's recorded demo on a fresh copy of the example workspace
      --record FILE      write the model's replies to FILE, ready for --mock
      --transcript FILE  append every message to FILE as one JSON line
      --resume FILE      go on with the conversation of a transcript (with a prompt, or in a conversation)
      --sandbox          run bash under bubblewrap: files read-only except the workspace, no network
      --skills DIR       (stage4) another folder of skills, beside skills/ and .agents/skills/ of the workspace
      --debug            show stack traces of errors
  -h, --help             show this help
  -V, --version          show the version

Environment: OPENAI_API_KEY (not needed for --mock or a local server), OPENAI_BASE_URL, AGENT_MODEL.
Exit codes: 0 answered, 1 no answer (step limit, an empty answer) or a risky call denied without a terminal,
            2 usage or configuration error, 3 model or API error, 130 interrupted.
`;
}

export function readConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Config {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    // node's messages run to several sentences and lines; the first says what is wrong.
    const first = (error as Error).message.split("\n")[0].split(". ")[0];
    throw new UsageError(first.replace(/\.$/, ""));
  }
  const { values, positionals } = parsed;

  const cwd = values.cwd ?? process.cwd();
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${cwd} is not a folder`);

  const approval = values.yes ? "auto" : (values.approval ?? "ask");
  if (!["ask", "auto", "never"].includes(approval)) {
    throw new UsageError(`--approval must be ask, auto or never, not "${approval}"`);
  }

  const maxSteps = values["max-steps"] === undefined ? DEFAULT_MAX_STEPS : Number(values["max-steps"]);
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new UsageError(`--max-steps must be a whole number of at least 1, not "${values["max-steps"]}"`);
  }
  if (values.mock !== undefined && !existsSync(values.mock)) throw new UsageError(`--mock ${values.mock}: no such file`);
  if (values.resume !== undefined && !existsSync(values.resume)) throw new UsageError(`--resume ${values.resume}: no such file`);
  if (values.resume !== undefined && values.demo) throw new UsageError("--resume and --demo do not go together: the demo replays its own recording");
  for (const folder of values.skills ?? []) {
    if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new UsageError(`--skills ${folder} is not a folder`);
  }

  if (values.sandbox) {
    const problem = sandboxProblem();
    if (problem) throw new UsageError(problem);
  }

  const baseURL = (values["base-url"] ?? env.OPENAI_BASE_URL ?? OPENAI_URL).replace(/\/+$/, "");
  const model = values.model ?? env.AGENT_MODEL ?? (baseURL === OPENAI_URL ? DEFAULT_OPENAI_MODEL : "");
  const apiKey = env.OPENAI_API_KEY ?? (isLocal(baseURL) ? "not-needed" : "");
  const needsModel = values.mock === undefined && !values.demo && !values.help && !values.version;
  if (needsModel && !apiKey) {
    throw new UsageError(
      `no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for another provider), or replay a recording with --mock FILE`,
    );
  }
  if (needsModel && !model) throw new UsageError(`no model name for ${baseURL}: set AGENT_MODEL or pass --model NAME`);

  return {
    prompt: positionals.length > 0 ? positionals.join(" ") : undefined,
    cwd,
    approval: approval as ApprovalMode,
    maxSteps,
    mock: values.mock,
    demo: values.demo ?? false,
    record: values.record,
    transcript: values.transcript,
    resume: values.resume,
    sandbox: values.sandbox ?? false,
    skills: values.skills ?? [],
    model: values.mock !== undefined || values.demo ? "scripted" : model,
    baseURL,
    apiKey,
    debug: values.debug ?? false,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

/** Local servers (Ollama, LM Studio, vLLM on this machine) do not check keys. */
function isLocal(url: string): boolean {
  return /^https?:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/.test(url);
}
