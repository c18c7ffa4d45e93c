// The generated parts of docs/: stage diffs, transcripts and the lines-of-code table are made
// from the code, between markers, so they cannot drift from it:
//
//   <!-- generated: diff stage0 stage1 -->   ...   <!-- end generated -->
//   <!-- generated: transcript test/golden/stage0/some-case/expected.jsonl 2 6 -->
//   <!-- generated: file stages/stage0.ts -->
//   <!-- generated: function shared/loop.ts runLoop -->
//   <!-- generated: loc -->
//
// `make docs` rewrites them; test/docs.test.ts fails when a doc is not what this would write.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createTwoFilesPatch } from "diff";
import { parseMessageLines, type Message } from "../shared/messages.ts";

export const ROOT = join(import.meta.dirname, "..");
const BLOCK = /(<!-- generated: ([^>]*?) -->\n)[\s\S]*?(<!-- end generated -->)/g;

/** Reads a file of the repository; tests pass another reader to see what a changed file would do. */
export type ReadSource = (path: string) => string;
const readSource: ReadSource = (path) => readFileSync(join(ROOT, path), "utf8");

/** The document with every generated block made again from the code. */
export function generate(doc: string, read: ReadSource = readSource): string {
  return doc.replace(BLOCK, (_, open: string, spec: string, close: string) => `${open}${render(spec.trim().split(/\s+/), read)}${close}`);
}

function render([kind, ...args]: string[], read: ReadSource): string {
  if (kind === "diff") return stageDiff(args[0], args[1], read);
  if (kind === "transcript") return transcript(args[0], Number(args[1] ?? 1), Number(args[2] ?? Infinity), read);
  if (kind === "loc") return locTable(read);
  if (kind === "file") return "```ts\n" + read(args[0]).trimEnd() + "\n```\n";
  if (kind === "function") return "```ts\n" + functionSource(args[0], args[1], read) + "\n```\n";
  throw new Error(`unknown generated block "${kind}"`);
}

/** The unified diff between two stage files: exactly what the later stage adds. */
function stageDiff(a: string, b: string, read: ReadSource): string {
  const [from, to] = [`stages/${a}.ts`, `stages/${b}.ts`];
  const patch = createTwoFilesPatch(from, to, read(from), read(to), undefined, undefined, { context: 3 });
  const body = patch.split("\n").filter((line) => !/^(=+|Index: .*)$/.test(line)).join("\n").trimEnd();
  return "```diff\n" + body + "\n```\n";
}

/** Messages `first` to `last` (1-based, system prompt excluded) of a transcript, compactly. */
function transcript(path: string, first: number, last: number, read: ReadSource): string {
  const messages = parseMessageLines(read(path), (line) => {
    throw new Error(`${path}:${line} is not JSON`);
  }).filter((m) => m.role !== "system");
  const lines = messages.slice(first - 1, last).flatMap(renderMessage);
  return "```\n" + lines.join("\n") + "\n```\n";
}

const MAX_RESULT_LINES = 8;

function renderMessage(message: Message): string[] {
  const label = (name: string, text: string) => text.split("\n").map((line, i) => `${i === 0 ? name.padEnd(10) : " ".repeat(10)}${line}`.trimEnd());
  if (message.role === "tool") {
    const lines = message.content.split("\n");
    const shown = lines.length > MAX_RESULT_LINES ? [...lines.slice(0, MAX_RESULT_LINES - 1), `[... ${lines.length - MAX_RESULT_LINES + 1} more lines]`] : lines;
    return label("tool", shown.join("\n"));
  }
  if (message.role !== "assistant") return label(message.role, message.content);
  const out = message.content ? label("assistant", message.content) : [];
  for (const call of message.tool_calls ?? []) {
    let args: string = call.function.arguments;
    try {
      const parsed = JSON.parse(args);
      args = Object.entries(parsed).map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(" ");
    } catch {
      // shown as sent
    }
    out.push(...label(out.length === 0 ? "assistant" : "", `→ ${call.function.name} ${args.length > 200 ? args.slice(0, 199) + "…" : args}`));
  }
  return out;
}

/** One top-level function of a file, with its doc comment: from its first line to the closing brace. */
function functionSource(path: string, name: string, read: ReadSource): string {
  const lines = read(path).split("\n");
  let start = lines.findIndex((line) => new RegExp(`^(export )?(async )?function ${name}\\b`).test(line));
  if (start === -1) throw new Error(`${path} has no top-level function ${name}`);
  while (start > 0 && /^(\/\*\*| \*)/.test(lines[start - 1])) start--;
  const end = lines.indexOf("}", start);
  return lines.slice(start, end + 1).join("\n");
}

/** Lines per stage file and per shared module: all of them, and the ones with code. */
function locTable(read: ReadSource): string {
  const files = [
    ...readdirSync(join(ROOT, "stages")).filter((f) => f.endsWith(".ts")).sort().map((f) => `stages/${f}`),
    ...readdirSync(join(ROOT, "shared")).filter((f) => f.endsWith(".ts")).sort().map((f) => `shared/${f}`),
  ];
  const rows = files.map((file) => {
    const lines = read(file).trimEnd().split("\n");
    const code = lines.filter((line) => !/^\s*$|^\s*\/\/|^\s*\/?\*/.test(line)).length;
    return `| [${file}](../${file}) | ${lines.length} | ${code} |`;
  });
  return ["| file | lines | code lines |", "|---|---:|---:|", ...rows].join("\n") + "\n";
}

export const DOCS = () => readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => join(ROOT, "docs", f));

if (import.meta.filename === process.argv[1]) {
  for (const file of DOCS()) {
    const before = readFileSync(file, "utf8");
    const after = generate(before);
    if (after !== before) {
      writeFileSync(file, after);
      console.log(`docs: updated ${relative(ROOT, file)}`);
    }
  }
}
