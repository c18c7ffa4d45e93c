// A bash tool that can only read. Read-only subagents get this one: a strict allow-list, checked
// before anything runs. Anything the checker cannot prove harmless is refused, with the reason.
// The checker reads the command the way the shell will: quotes, operators and redirections.
import * as z from "zod";
import { DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, runCommand } from "./bash.ts";
import type { Workspace } from "./workspace.ts";
import { defineTool, type Tool } from "./tools.ts";

/** Commands that only read, each with the arguments that would make it write or run something. */
const READERS: Record<string, (args: string[]) => string | undefined> = {
  ls: none, cat: none, head: none, tail: none, wc: none, nl: none, file: none, stat: none, du: none,
  pwd: none, echo: none, printf: none, basename: none, dirname: none, realpath: none, readlink: none,
  cut: none, tr: none, cmp: none, comm: none, diff: none, column: none, fold: none, strings: none,
  md5sum: none, sha1sum: none, sha256sum: none, which: none, true: none, false: none, uname: none,
  grep: none, egrep: none, fgrep: none, jq: none,
  rg: (args) => forbid(args, ["--pre"], "runs a preprocessor command"),
  tree: (args) => forbid(args, ["-o"], "writes its output to a file"),
  sort: (args) => forbid(args, ["-o", "--output"], "writes its output to a file"),
  uniq: (args) => (args.filter((a) => !a.startsWith("-")).length > 1 ? "uniq with two file names writes the second one" : undefined),
  find: (args) =>
    forbid(args, ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"], "runs commands or writes files"),
  git: (args) => {
    const sub = args[0] === "--no-pager" ? args[1] : args[0];
    if (!GIT_READERS.includes(sub ?? "")) return `git ${sub ?? ""} is not a read-only git command (allowed: ${GIT_READERS.join(", ")})`.replace("git  ", "git ");
    return forbid(args, ["--output", "--ext-diff", "--textconv", "-o"], "writes files or runs external programs");
  },
};
const GIT_READERS = ["status", "log", "diff", "show", "ls-files", "ls-tree", "grep", "blame", "rev-parse", "describe", "shortlog", "cat-file"];

function none(): undefined {
  return undefined;
}

function forbid(args: string[], flags: string[], why: string): string | undefined {
  const bad = args.find((arg) => flags.some((flag) => arg === flag || arg.startsWith(flag + "=")));
  return bad === undefined ? undefined : `${bad} ${why}`;
}

/** Redirections that write nowhere: errors merged into the output, or thrown away. */
const HARMLESS_REDIRECTS = ["2>&1", "2>/dev/null", ">/dev/null", "&>/dev/null", "1>/dev/null"];

/** Why `command` is not provably read-only, or undefined when it is. */
export function readOnlyProblem(command: string): string | undefined {
  const tokens = tokenize(command);
  if (typeof tokens === "string") return tokens;
  const commands: Token[][] = [[]];
  for (const token of tokens) {
    if (token.kind === "operator") commands.push([]);
    else if (token.kind === "redirect") {
      const readsAFile = /^\d*<[^<>&]/.test(token.text);
      if (!HARMLESS_REDIRECTS.includes(token.text) && !readsAFile) return `the redirection ${token.text} could write a file`;
    } else commands.at(-1)!.push(token);
  }
  for (const words of commands) {
    if (words.length === 0) continue;
    const [name, ...args] = words.map((word) => word.text);
    if (name.includes("=")) return `setting variables (${name}) before a command is not allowed here`;
    const check = READERS[name.split("/").at(-1)!];
    if (!check || name.includes("/")) return `"${name}" is not one of the read-only commands (${Object.keys(READERS).join(", ")})`;
    // A wildcard could expand to a file named like a forbidden option (`-delete`): quote it for such commands.
    if (check !== none && words.slice(1).some((word) => word.glob)) {
      return `an unquoted wildcard could expand to an option of ${name}; quote the pattern or name the files`;
    }
    const problem = check(args);
    if (problem) return problem;
  }
  return undefined;
}

/** `glob` marks a word with an unquoted wildcard: the shell expands it after this check. */
type Token = { kind: "word" | "operator" | "redirect"; text: string; glob?: boolean };

/** Splits a command line into words, operators (| || && ; newline) and redirections, as bash would. */
function tokenize(command: string): Token[] | string {
  const tokens: Token[] = [];
  let word = "";
  let inWord = false;
  let glob = false;
  const endWord = () => {
    if (inWord) tokens.push({ kind: "word", text: word, glob });
    word = "";
    inWord = false;
    glob = false;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return "the command has an unclosed quote";
      word += command.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        if (command[j] === "\\") j++;
        else if (command[j] === "`" || (command[j] === "$" && /[^\s"]/.test(command[j + 1] ?? " "))) {
          return "expansions ($..., `...`) are not allowed here";
        }
      }
      if (j >= command.length) return "the command has an unclosed quote";
      word += command.slice(i + 1, j);
      inWord = true;
      i = j;
    } else if (c === "\\") {
      word += command[i + 1] ?? "";
      inWord = true;
      i++;
    } else if (c === "`" || (c === "$" && /[^\s]/.test(command[i + 1] ?? " "))) {
      return "expansions ($..., `...`) are not allowed here";
    } else if (c === "(" || c === ")" || c === "{" || c === "}") {
      return "subshells and groups ( ) { } are not allowed here";
    } else if (/\s/.test(c) && c !== "\n") {
      endWord();
    } else if (c === "\n" || c === ";" || c === "|") {
      endWord();
      if (command[i + 1] === "|" || command[i + 1] === "&") i++;
      tokens.push({ kind: "operator", text: c });
    } else if (c === "&" && command[i + 1] === "&") {
      endWord();
      tokens.push({ kind: "operator", text: "&&" });
      i++;
    } else if (c === "&" && command[i + 1] !== ">") {
      return "running commands in the background (&) is not allowed here";
    } else if (c === "&" || c === ">" || c === "<") {
      // A redirection and its target become one token: 2>&1, &>/dev/null, > out.txt, < in.txt.
      const fd = /^\d+$/.test(word) ? word : "";
      if (fd) word = "";
      endWord();
      let op = c;
      while (/[<>&|]/.test(command[i + 1] ?? "")) op += command[++i];
      while (command[i + 1] === " ") i++;
      let target = "";
      while (i + 1 < command.length && !/[\s;|&<>()]/.test(command[i + 1])) target += command[++i];
      tokens.push({ kind: "redirect", text: fd + op + target });
    } else {
      word += c;
      inWord = true;
      glob ||= c === "*" || c === "?" || c === "[";
    }
  }
  endWord();
  return tokens;
}

export function readOnlyBashTool(workspace: Workspace): Tool {
  return defineTool({
    name: "bash",
    description:
      "Run a read-only bash command in the workspace: only commands that read " +
      "(ls, cat, head, grep, rg, find, wc, git status/log/diff/show, ...), joined by pipes, && or ;. " +
      "No writing: no redirection into files, no command substitution, no other programs.",
    schema: z.object({
      command: z.string().min(1).describe("The read-only command to run, e.g. `grep -rn \"TODO\" src | head -20`."),
      timeout: z.number().positive().optional().describe(`Seconds before the command is killed (default ${DEFAULT_TIMEOUT_S}).`),
    }),
    risky: false, // it cannot change anything, so it needs no approval
    async run({ command, timeout }, { signal }) {
      const problem = readOnlyProblem(command);
      if (problem) return `Error: refused, this bash is read-only: ${problem}. Nothing was run.`;
      return runCommand(command, {
        cwd: workspace.root,
        signal,
        timeoutMs: Math.min(timeout ?? DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S) * 1000,
        sandbox: workspace.sandbox ? "read-only" : undefined, // a second wall behind the allow-list
      });
    },
  });
}
